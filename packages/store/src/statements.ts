// The hot-path SQL texts, for EXPLAIN in tests and benchmarks. Not part of the Store contract:
// they change with the schema.
export { pgClaimSql } from './postgres/pg-claim.js';
export { sqliteClaimSql } from './sqlite/sqlite-claim.js';
