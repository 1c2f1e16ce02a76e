import type { Scenario } from '../scenario.js';
import { killInstances } from './kill-instances.js';
import { sqliteProcesses } from './sqlite-processes.js';
import { handlerFaults } from './handler-faults.js';
import { stalledHolder } from './stalled-holder.js';
import { sweepRace } from './sweep-race.js';
import { nudgeStorm } from './nudge-storm.js';
import { databaseOutages } from './database-outages.js';
import { ambiguousCommit } from './ambiguous-commit.js';
import { partition } from './partition.js';
import { clockSkew } from './clock-skew.js';
import { poisonJobs } from './poison-jobs.js';
import { gracefulShutdown } from './graceful-shutdown.js';
import { noNudges } from './no-nudges.js';
import { rollingDeploy } from './rolling-deploy.js';
import { recoveryAtScale } from './recovery-at-scale.js';
import { apiAbuse } from './api-abuse.js';
import { queueLimits } from './queue-limits.js';
import { sharedLimits } from './shared-limits.js';
import { durableSteps } from './durable-steps.js';

/** Every scenario, in the order of the published table (by the numbering). */
export const SCENARIOS: readonly Scenario[] = [
  killInstances,
  sqliteProcesses,
  handlerFaults,
  stalledHolder,
  sweepRace,
  nudgeStorm,
  databaseOutages,
  ambiguousCommit,
  partition,
  clockSkew,
  poisonJobs,
  gracefulShutdown,
  noNudges,
  rollingDeploy,
  recoveryAtScale,
  apiAbuse,
  queueLimits,
  sharedLimits,
  durableSteps,
];
