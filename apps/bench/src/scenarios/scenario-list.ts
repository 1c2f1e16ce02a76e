import type { ScenarioName } from '../cli-options.js';
import { busyKeyScenario } from './busy-key-scenario.js';
import { cpuScenario } from './cpu-scenario.js';
import { drainScenario } from './drain-scenario.js';
import { enqueueScenario } from './enqueue-scenario.js';
import { finishedRowsScenario } from './finished-rows-scenario.js';
import { flights3mScenario } from './flights-3m-scenario.js';
import { idleLatencyScenario } from './idle-latency-scenario.js';
import { idleScenario } from './idle-scenario.js';
import { instancesScenario } from './instances-scenario.js';
import { latencyScenario } from './latency-scenario.js';
import { notDueRowsScenario } from './not-due-rows-scenario.js';
import { pgLimitScenario } from './pg-limit-scenario.js';
import { poolerScenario } from './pooler-scenario.js';
import { queueLimitsScenario } from './queue-limits-scenario.js';
import { retentionScenario } from './retention-scenario.js';
import type { Scenario } from './scenario.js';
import { steadyScenario } from './steady/steady-scenario.js';
import { stepsScenario } from './steps-scenario.js';
import { tracingScenario } from './tracing-scenario.js';

/** Every scenario by name; the run order is {@link SCENARIO_NAMES}'. */
export const SCENARIOS: Readonly<Record<ScenarioName, Scenario>> = {
  drain: drainScenario,
  enqueue: enqueueScenario,
  latency: latencyScenario,
  'idle-latency': idleLatencyScenario,
  cpu: cpuScenario,
  'pg-limit': pgLimitScenario,
  pooler: poolerScenario,
  'finished-rows': finishedRowsScenario,
  retention: retentionScenario,
  'not-due-rows': notDueRowsScenario,
  instances: instancesScenario,
  'flights-3m': flights3mScenario,
  idle: idleScenario,
  'queue-limits': queueLimitsScenario,
  'busy-key': busyKeyScenario,
  steady: steadyScenario,
  steps: stepsScenario,
  tracing: tracingScenario,
};

/** Scenarios that run nudge on PostgreSQL only (the others compare every selected system). */
export const NUDGE_ONLY_SCENARIOS: ReadonlySet<ScenarioName> = new Set([
  'pg-limit',
  'pooler',
  'finished-rows',
  'retention',
  'not-due-rows',
  'instances',
  'flights-3m',
  'queue-limits',
  'busy-key',
]);
