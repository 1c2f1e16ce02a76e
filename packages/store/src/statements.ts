// The hot-path SQL, for EXPLAIN in tests and benchmarks. Not part of the Store contract: it
// changes with the schema.
export { buildPgClaim } from './postgres/pg-claim-sql.js';
export { buildSqliteClaim } from './sqlite/sqlite-claim.js';
export { PG_FINISHED_KINDS, PG_PRUNE_FINISHED } from './postgres/pg-retention.js';
export { SQLITE_FINISHED_KINDS, SQLITE_PRUNE_FINISHED } from './sqlite/sqlite-retention.js';
export { pgRetryPageSql } from './postgres/pg-bulk-retry.js';
export { pgCancelPageSql } from './postgres/pg-bulk-cancel.js';
export { sqliteRetryPageSql } from './sqlite/sqlite-bulk-retry.js';
export { sqliteCancelPageSql } from './sqlite/sqlite-bulk-cancel.js';
export {
  PLANNER_OPTIONS as PG_PLANNER_OPTIONS,
  BY_INDEX_OPTIONS as PG_BY_INDEX_OPTIONS,
} from './postgres/pg-pool.js';
export { PG_ACTIVITY } from './postgres/pg-activity.js';
