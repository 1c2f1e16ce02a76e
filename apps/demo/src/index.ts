// The demo's library surface, for tests and for anyone reusing its pieces. The entry points are
// handlers.ts (NUDGE_HANDLERS), producer.ts and start.ts, which run as programs.
export * from './airport.js';
export * from './archive-json.js';
export * from './archive-payload.js';
export * from './busiest-origins.js';
export * from './dataset-files.js';
export * from './delay-report.js';
export * from './delay-stats.js';
export * from './demo-findings.js';
export * from './flight-data-cache.js';
export * from './flight.js';
export * from './format-columns.js';
export * from './format-summary.js';
export { archiveReport, flightDelayReport } from './handlers.js';
export * from './job-context.js';
export * from './job-kinds.js';
export * from './job-view.js';
export * from './make-folder.js';
export * from './nearest-rank.js';
export * from './nudge-client.js';
export * from './open-outbox.js';
export * from './outbox.js';
export * from './parse-csv.js';
export * from './report-payload.js';
export * from './run-stats.js';
