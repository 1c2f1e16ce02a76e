export * from './job-status.js';
export * from './job.js';
export * from './execution-class.js';
export * from './backoff.js';
export * from './error-codes.js';
export * from './nudge-error.js';
export * from './logger.js';
export * from './storable-json.js';
