export type { JobInput, JobOptions, JobFor, EnqueueResult } from './job-input.js';
export {
  validateJobInput as validateJob,
  validateJobInputs as validateJobs,
  MAX_KIND_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_CONCURRENCY_KEY_LENGTH,
  MAX_DELAY_MS,
  PRIORITY_RANGE,
  MAX_ATTEMPTS_RANGE,
  MAX_SIGNAL_NAME_LENGTH,
  MAX_SIGNAL_ID_LENGTH,
} from '@nudge/core';
export type { SqlDialect } from '@nudge/store/sql';
export type { EnqueueExecutor } from './enqueue-executor.js';
export { enqueue, enqueueMany, enqueueSync, enqueueManySync, type EnqueueOptions } from './enqueue.js';
export { signal, signalSync, type SignalOptions, type SignalResult } from './signal.js';
export type { SentSignalView } from './signal-view.js';
export type { JobLogLineView, JobLogsQuery, JobLogsView } from './job-logs-view.js';
export { SQLITE_BUSY_RETRY_BUDGET_MS, isSqliteBusy } from '@nudge/core';
export { nudge, DEFAULT_NUDGE_TIMEOUT_MS, type NudgeOptions, type NudgeOutcome } from './nudge.js';
export { NudgeApiError, NudgeUnreachableError, type BatchProblem } from './nudge-api-error.js';
export {
  isTerminalStatus,
  type JobView,
  type ListedJobView,
  type EnqueuedJobView,
  type AttemptErrorView,
  type StepView,
  type WaitingForView,
} from './job-view.js';
export { WaitTimeoutError, MAX_IDS_PER_READ, type WaitOptions } from './job-poller.js';
export {
  NudgeClient,
  createClient,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_POLL_INTERVAL_MS,
  type NudgeClientOptions,
  type HttpJobInput,
  type HttpJobFor,
  type ListJobsQuery,
  type JobPage,
} from './nudge-client.js';
export type { RetryAllFilter, RetryStepsOptions, CancelAllFilter } from './bulk-command-filters.js';
