// The enqueue and signal SQL of both dialects, driver-free: rows in, SQL text and parameters out.
// The store and the client's SDK both run it, so a new column of the jobs table is added once per
// dialect.
export * from './sql-query.js';
export * from './in-transaction.js';
export * from './sqlite-clock.js';
export * from './job-columns.js';
export * from './returned-row.js';
export * from './pg-insert-jobs.js';
export * from './sqlite-insert-jobs.js';
export * from './insert-jobs-sql.js';
export * from './enqueue-plan.js';
export * from './dedupe-steps.js';
export * from './job-insert-values.js';
export * from './dependency-sql.js';
export * from './settle-waiting.js';
export * from './insert-dependents.js';
export * from './keyed-repeat.js';
export * from './signal-sql.js';
