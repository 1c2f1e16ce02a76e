export * from './databases.js';
export * from './raw-sql.js';
export * from './wait-for.js';
export * from './engine-fixture.js';
