import { context, ROOT_CONTEXT, SpanKind, trace, type Span } from '@opentelemetry/api';
import type { FastifyRequest } from 'fastify';
import { isTraceparent, recordSpanError, traceContextText } from '@nudge/core';
import type { EnqueueInput, EnqueuedJob } from '@nudge/store';
import { MESSAGING_SYSTEM, remoteSpanContext, TRACER_NAME, traceContextOf } from '@nudge/engine';

/** The trace of one enqueue request: the context its jobs carry, and its `send` span's end. */
export interface EnqueueTrace {
  /** The jobs' `trace_context` text; `undefined` when the request is in no trace. */
  readonly traceContext: string | undefined;
  /** Ends the `send` span (if any) with the jobs written, or the error that refused them. */
  finish(jobs: readonly EnqueuedJob[] | undefined, error?: unknown): void;
}

const UNTRACED: EnqueueTrace = { traceContext: undefined, finish: () => undefined };

/** The request's own `traceparent` and `tracestate` headers as `trace_context` text, if valid. */
function headerTraceContext(request: FastifyRequest): string | undefined {
  const { traceparent, tracestate } = request.headers;
  if (!isTraceparent(traceparent)) return undefined;
  return traceContextText(
    typeof tracestate === 'string' && tracestate !== '' ? { traceparent, tracestate } : { traceparent },
  );
}

/**
 * Starts the trace of an enqueue request of `count` jobs. Without tracing (`traced` false: no
 * tracer provider), the jobs carry the request's incoming `traceparent` (and `tracestate`) as
 * given, and nothing else is done. With tracing, a `send` span (PRODUCER) starts under the
 * active span (the server span of `@fastify/otel`; else the incoming headers' context), and the
 * jobs carry its context. Attributes by the OpenTelemetry messaging semantic conventions:
 * `messaging.system` `nudge`, `messaging.operation.type` `send`, and on finishing
 * `messaging.destination.name` (the queue, when the jobs share one) and `messaging.message.id`
 * (the job id) for one job, `messaging.batch.message_count` for a batch.
 */
export function startEnqueueTrace(request: FastifyRequest, traced: boolean, count: number): EnqueueTrace {
  if (!traced) {
    const traceContext = headerTraceContext(request);
    return traceContext === undefined ? UNTRACED : { traceContext, finish: () => undefined };
  }
  let parent = context.active();
  if (trace.getSpan(parent) === undefined) {
    const remote = remoteSpanContext(headerTraceContext(request));
    if (remote) parent = trace.setSpanContext(ROOT_CONTEXT, remote);
  }
  const span: Span = trace.getTracer(TRACER_NAME).startSpan(
    'send',
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': MESSAGING_SYSTEM,
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'send',
        ...(count > 1 ? { 'messaging.batch.message_count': count } : {}),
      },
    },
    parent,
  );
  return {
    traceContext: traceContextOf(span),
    finish(jobs, error) {
      if (jobs !== undefined && jobs.length > 0) {
        const queue = jobs[0]?.queue;
        if (queue !== undefined && jobs.every((job) => job.queue === queue))
          span.setAttribute('messaging.destination.name', queue);
        if (jobs.length === 1) span.setAttribute('messaging.message.id', String(jobs[0]?.id));
      }
      if (error !== undefined) recordSpanError(span, error);
      span.end();
    },
  };
}

/** `input` carrying the trace's context (itself when the request is in no trace). */
export const withTraceContext = <Input extends EnqueueInput>(input: Input, traced: EnqueueTrace): Input =>
  traced.traceContext === undefined ? input : { ...input, traceContext: traced.traceContext };

/**
 * Runs an enqueue under `traced`: finishes its span with the jobs written, or with the error
 * (rethrown).
 */
export async function traceEnqueue<Result extends EnqueuedJob | EnqueuedJob[]>(
  traced: EnqueueTrace,
  enqueue: () => Promise<Result>,
): Promise<Result> {
  let result: Result;
  try {
    result = await enqueue();
  } catch (error) {
    traced.finish(undefined, error);
    throw error;
  }
  traced.finish(Array.isArray(result) ? result : [result]);
  return result;
}
