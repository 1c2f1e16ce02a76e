// Loaded only when the environment asks for traces (see `tracingRequested`): without OTEL_*
// variables, the service never imports the OpenTelemetry SDK.
import { fileURLToPath } from 'node:url';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { EngineTracing } from '@nudge/engine';

/** A started OpenTelemetry SDK of the service's main thread. */
export interface ServiceTracing {
  /** What the engine traces with: each worker thread starts an SDK of its own (thread-tracing.js). */
  readonly engine: EngineTracing;
  /** Flushes the spans not yet exported and stops the SDK; never rejects. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK (`NodeSDK`, configured by the standard `OTEL_*` variables: the
 * exporter, its endpoint and protocol, the service name, the sampler) with `@fastify/otel`, which
 * gives every API request a server span (and its route handler an internal one; hooks get none)
 * once Fastify initializes. Call it before the HTTP app is created.
 */
export function startTracing(): ServiceTracing {
  const sdk = new NodeSDK({
    // The request span and the handler's; a span per hook (API keys, rate limit, headers) would
    // cost every request more than it tells.
    instrumentations: [
      new FastifyOtelInstrumentation({ registerOnInitialization: true, instrumentHooks: false }),
    ],
  });
  sdk.start();
  return {
    engine: { threadSetup: fileURLToPath(new URL('./thread-tracing.js', import.meta.url)) },
    // A collector that cannot be reached loses the last spans; it must not fail the stop.
    shutdown: () => sdk.shutdown().catch(() => undefined),
  };
}
