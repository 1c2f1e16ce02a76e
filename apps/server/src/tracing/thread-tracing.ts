// The tracing setup module of the service's worker threads (`EngineTracing.threadSetup`): a
// worker thread does not share the main thread's tracer provider, so each starts an
// OpenTelemetry SDK of its own, from the same OTEL_* variables (a thread inherits the process's
// environment). The `process <kind>` spans of its attempts, and the spans its handlers make,
// are exported from the thread.
import { NodeSDK } from '@opentelemetry/sdk-node';

new NodeSDK().start();
