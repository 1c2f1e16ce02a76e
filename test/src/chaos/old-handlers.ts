// The handler module of the old version in the rolling-deploy scenario: only `work`.
export { work } from './chaos-handlers.js';
