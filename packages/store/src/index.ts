export * from './store.js';
export { createStore, sqlitePath } from './create-store.js';
export { SqliteStore } from './sqlite/sqlite-store.js';
export { PostgresStore, type PostgresStoreOptions } from './postgres/postgres-store.js';
