export { Engine, type SlotCounts } from './engine.js';
export type { EngineEvents, EngineEventName, JobLabels } from './engine-events.js';
export type { TriggerCounts } from './claim-trigger.js';
export { jobLogFields, type JobLogFields } from './job-log-fields.js';
export {
  resolveEngineOptions,
  type EngineOptions,
  type EngineTracing,
  type EngineSettingOptions,
  type ResolvedEngineOptions,
} from './engine-options.js';
export * from './settings/index.js';
export type { HeartbeatResult } from './lease-keeper.js';
export type { RescueResult } from './rescuer.js';
export type { ScheduleResult } from './promoter.js';
export type { EngineService } from './service.js';
export type { UnhandledKindsRun } from './unhandled-kinds.js';
export {
  parseQueueList,
  resolveQueueServing,
  servesOpen,
  EVERY_QUEUE,
  type ServedQueue,
  type QueueServing,
} from './queue-serving.js';
export {
  defineHandlers,
  type DefinedHandlers,
  type FollowUpOptions,
  type Handler,
  type HandlerContext,
  type HandlerDefinition,
  type HandlerEntry,
  type HandlerExport,
  type JobDependency,
  type JsonSchema,
  type KindDeclaration,
  type KindInfo,
  type PayloadOf,
  type PayloadsOf,
  type ProgressValue,
} from './handlers/index.js';
export {
  Pruner,
  DEFAULT_PRUNE_BATCH_SIZE,
  DEFAULT_RECLAIM_AFTER_ROWS,
  type PruneResult,
  type PrunerOptions,
} from './pruner.js';
export {
  CronScheduler,
  CRON_CHECK_INTERVAL_MS,
  type CronRunResult,
  type CronTick,
  type CronSchedulerOptions,
} from './cron-scheduler.js';
export {
  resolveSchedules,
  dueTicks,
  MISSED_AFTER_MS,
  type CronSchedule,
  type MissedTicks,
  type ResolvedSchedule,
  type DueTicks,
} from './cron-schedule.js';
export {
  MESSAGING_SYSTEM,
  TRACER_NAME,
  remoteSpanContext,
  traceContextOf,
} from './threads/attempt-tracing.js';
