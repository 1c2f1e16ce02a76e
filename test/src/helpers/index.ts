export * from './databases.js';
export * from './raw-sql.js';
export * from './wait-for.js';
export * from './engine-fixture.js';
export * from './tcp-proxy.js';
export * from './engine-suite.js';
export * from './prometheus-text.js';
export * from './store-threads.js';
