// What `@nudge/http/settings` exports: the HTTP layer's defaults and the API-key parser, for the
// server's settings table. Importing it loads neither Fastify nor the metrics.
export {
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_METRICS_MAX_KINDS,
  DEFAULT_METRICS_MAX_QUEUES,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
} from './http-defaults.js';
export { parseApiKeys, type ApiKey } from './api-keys.js';
