// The hot-path SQL, for EXPLAIN in tests and benchmarks. Not part of the Store contract: it
// changes with the schema.
export { buildPgClaim } from './postgres/pg-claim.js';
export { buildSqliteClaim } from './sqlite/sqlite-claim.js';
