export { buildApp, type BuildAppOptions } from './build-app.js';
export {
  createHttpApp,
  DEFAULT_BODY_LIMIT_BYTES,
  type HttpAppOptions,
  type SettingNames,
} from './create-http-app.js';
export type { NudgeHttpApp } from './nudge-http-app.js';
export { DEFAULT_INSTANCE_LIVE_WITHIN_MS, nudgeRoutes, type NudgeRoutesOptions } from './nudge-routes.js';
export type { EnginePort } from './engine-port.js';
export { checkReadiness } from './check-readiness.js';
export { createJobBodySchema, type CreateJobBody } from './create-job-body.js';
export { jobViewSchema, toJobView, type JobView } from './job-view.js';
export {
  stepViewSchema,
  waitingForSchema,
  toStepView,
  waitingFor,
  type StepView,
  type WaitingForView,
} from './job-steps-view.js';
export {
  jobSignalRoute,
  signalBodySchema,
  signalViewSchema,
  toSignalView,
  type SignalBody,
  type SignalView,
} from './job-signal-route.js';
export {
  jobLogsRoute,
  jobLogsQuerySchema,
  jobLogsViewSchema,
  jobLogLineSchema,
  toJobLogsView,
  DEFAULT_LOG_LIMIT,
  MAX_LOG_LIMIT,
  type JobLogsView,
} from './job-logs-route.js';
export { errorBodySchema, errorBody, type ErrorBody } from './error-body.js';
export { isIsoDateTime } from './date-time-format.js';
export { MAX_BATCH_JOBS, createJobBatchBodySchema } from './job-batch-route.js';
export { batchProblemSchema, type BatchProblem } from './error-body.js';
export {
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  listJobsQuerySchema,
  listedJobSchema,
} from './job-list-route.js';
export { MAX_LIST_RESPONSE_BYTES } from './capped-job-page.js';
export {
  OPTIONAL_JOB_FIELDS,
  parseJobListFields,
  type JobListFields,
  type OptionalJobField,
} from './job-list-fields.js';
export { instanceViewSchema, toInstanceView, type InstanceView } from './instance-view.js';
export {
  operatorRoutes,
  scheduleViewSchema,
  statsViewSchema,
  toScheduleView,
  toStatsView,
  type StatsView,
} from './operator-routes.js';
export { validateJobBody } from './validate-job-body.js';
export {
  API_SCOPES,
  MIN_API_KEY_LENGTH,
  parseApiKeys,
  allows,
  apiKeyId,
  type ApiKey,
  type ApiScope,
} from './api-keys.js';
export { routeAccess, PUBLIC_ROUTES, type RouteAccess } from './route-scopes.js';
export { DEFAULT_RATE_LIMIT_PER_MINUTE } from './install-rate-limit.js';
export { DOCS_PREFIX } from './install-docs.js';
export {
  DEFAULT_METRICS_MAX_KINDS,
  DEFAULT_METRICS_MAX_QUEUES,
  NudgeMetrics,
  type NudgeMetricsOptions,
  type MetricsEngine,
} from './nudge-metrics.js';
export { LABEL_RERANK_MS, LabelValues, OTHER_LABEL } from './label-values.js';
export { JobStatusCounts, DEFAULT_STATUS_COUNT_MAX_AGE_MS } from './job-status-counts.js';
export { queueViewSchema, toQueueView, type QueueView } from './queue-routes.js';
export { DEFAULT_NAME_PAGE_LIMIT, MAX_NAME_PAGE_LIMIT } from './name-page-query.js';
export { StatsSnapshots, STATS_REUSE_FACTOR, STATS_REUSE_FROM_MS } from './stats-snapshot.js';
