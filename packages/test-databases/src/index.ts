export * from './test-database.js';
export * from './raw-sql.js';
export * from './fault-triggers.js';
export * from './schema-dump.js';
export * from './poison-rows.js';
export * from './dependency-edges.js';
export * from './migrated-templates.js';
