export * from './spawn-server.js';
export * from './cpu-capacity.js';
export * from './measure-flights-3m.js';
