import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { recordSpanError, spanTraceContextText } from '@nudge/core';

/** The instrumentation scope of the client's spans. */
const TRACER_NAME = '@nudge/client';

/** The trace of one transactional enqueue: the context its jobs carry, and its span's end. */
export interface ProducerTrace {
  /** The jobs' `trace_context` text; `undefined` outside any span. */
  readonly traceContext: string | undefined;
  /** Ends the `send` span with the ids written, or the error that refused the jobs. */
  finish(ids: readonly number[] | undefined, error?: unknown): void;
}

const UNTRACED: ProducerTrace = { traceContext: undefined, finish: () => undefined };

/**
 * Starts the trace of a transactional enqueue of `count` jobs. Outside an active span, nothing
 * (one lookup of the active context). Inside one, a `send` span (PRODUCER) starts as its child,
 * with `messaging.system` `nudge`, `messaging.operation.type` `send`, `messaging.message.id`
 * (one job) or `messaging.batch.message_count` (a batch), and the jobs carry its context.
 */
export function startProducerTrace(count: number): ProducerTrace {
  if (trace.getActiveSpan() === undefined) return UNTRACED;
  const span = trace.getTracer(TRACER_NAME).startSpan('send', {
    kind: SpanKind.PRODUCER,
    attributes: {
      'messaging.system': 'nudge',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      ...(count > 1 ? { 'messaging.batch.message_count': count } : {}),
    },
  });
  return {
    traceContext: spanTraceContextText(span.spanContext()),
    finish(ids, error) {
      if (ids?.length === 1) span.setAttribute('messaging.message.id', String(ids[0]));
      if (error !== undefined) recordSpanError(span, error);
      span.end();
    },
  };
}

/**
 * Adds the active context to an HTTP request's headers (`traceparent`, `tracestate`) through the
 * registered propagator, so that the server's spans continue the producer's trace. Outside an
 * active span, nothing.
 */
export function injectTraceHeaders(headers: Record<string, string>): void {
  if (trace.getActiveSpan() !== undefined) propagation.inject(context.active(), headers);
}
