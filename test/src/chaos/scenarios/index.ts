import type { Scenario } from '../scenario.js';
import { killInstances } from './kill-instances.js';
import { sqliteProcesses } from './sqlite-processes.js';
import { stalledHolder } from './stalled-holder.js';
import { nudgeStorm } from './nudge-storm.js';
import { poisonJobs } from './poison-jobs.js';
import { sweepRace } from './sweep-race.js';
import { gracefulShutdown } from './graceful-shutdown.js';
import { noNudges } from './no-nudges.js';
import { recoveryAtScale } from './recovery-at-scale.js';
import { apiAbuse } from './api-abuse.js';

/** Every scenario, in the order of the published table. */
export const SCENARIOS: readonly Scenario[] = [
  killInstances,
  sqliteProcesses,
  stalledHolder,
  sweepRace,
  nudgeStorm,
  poisonJobs,
  gracefulShutdown,
  noNudges,
  recoveryAtScale,
  apiAbuse,
];
