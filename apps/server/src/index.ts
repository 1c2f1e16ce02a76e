export { loadConfig, CONFIG_VARIABLES, LOG_LEVELS, type LogLevel, type ServerConfig } from './config.js';
export { startServer, type RunningServer } from './start-server.js';
export type { ServerEngineOptions, ServerOptions } from './server-options.js';
