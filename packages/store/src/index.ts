export * from './store.js';
export { createStore, sqlitePath, type CreateStoreOptions } from './create-store.js';
export { DEFAULT_PRIORITY } from '@nudge/core';
export { SqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
export { PostgresStore, type PostgresStoreOptions } from './postgres/postgres-store.js';
export type { PgConnectionMode } from './postgres/pg-connections.js';
export { assertStorableInput } from './storable-input.js';
export { MAX_DELAY_MS } from '@nudge/core';
export { countStoreCalls } from './counted-store.js';
