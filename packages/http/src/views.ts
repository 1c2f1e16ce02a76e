// What `@nudge/http/views` exports: the request check and the answer shapes of the job, queue,
// schedule and stats routes, for the command line, which prints what the API answers without
// serving it. Importing it loads neither Fastify nor the metrics.
export { validateJobBody } from './validate-job-body.js';
export { toJobView, type JobView } from './job-view.js';
export { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from './job-list-route.js';
export { toQueueView, type QueueView } from './queue-routes.js';
export { toScheduleView, toStatsView, type StatsView } from './operator-routes.js';
