// The HTTP layer's defaults, apart from the modules that use them, so that the server's settings
// table (and so every `nudge` command) reads them without loading Fastify or prom-client.

/** Default largest request body: 1 MiB, in bytes (also Fastify's default). */
export const DEFAULT_BODY_LIMIT_BYTES = 1_048_576;

/** Default most requests per minute per API key (or client address without keys): 6000, 100 a second. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 6000;

/** Default most queues, besides the configured and recorded ones, with series of their own. */
export const DEFAULT_METRICS_MAX_QUEUES = 100;

/** Default most kinds, besides the engine's, with series of their own. */
export const DEFAULT_METRICS_MAX_KINDS = 100;
