import {
  context,
  createTraceState,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';
import { DEFAULT_QUEUE, parseTraceContext, spanTraceContextText } from '@nudge/core';
import { AttemptStatus } from './attempt-status.js';
import type { AttemptResult, JobTuple } from './thread-messages.js';

/** The instrumentation scope of nudge's spans. */
export const TRACER_NAME = '@nudge/engine';

/** `messaging.system` of every nudge span (OpenTelemetry messaging semantic conventions). */
export const MESSAGING_SYSTEM = 'nudge';

/** What an attempt's end is called in its span's `nudge.job.outcome` attribute. */
const OUTCOMES: Readonly<Record<AttemptResult[2], string>> = {
  [AttemptStatus.succeeded]: 'succeeded',
  [AttemptStatus.threw]: 'threw',
  [AttemptStatus.failedPermanently]: 'failed_permanently',
  [AttemptStatus.suspended]: 'suspended',
};

/**
 * The span context of a `trace_context` text (a remote parent), or `undefined` when it names
 * none. Read here, not through the registered propagator: the column's form is nudge's own.
 */
export function remoteSpanContext(text: string | null | undefined): SpanContext | undefined {
  const parsed = parseTraceContext(text);
  if (!parsed) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = parsed.traceparent.split('-');
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
    ...(parsed.tracestate === undefined ? {} : { traceState: createTraceState(parsed.tracestate) }),
  };
}

/** The `trace_context` text naming `span` as the parent (see `traceContextText`). */
export function traceContextOf(span: Span): string {
  return spanTraceContextText(span.spanContext());
}

/** One attempt's `process <kind>` span and the context its handler runs in. */
export interface AttemptSpan {
  readonly span: Span;
  /** The active context of the handler's code: the span's. */
  readonly context: Context;
}

/**
 * Spans of the attempts a worker thread runs, by the OpenTelemetry messaging semantic
 * conventions: a `process <kind>` span (CONSUMER) per attempt, child of the job's producer
 * context on the first attempt and linked to it on later ones (a new trace each: a retry may run
 * hours later); a job without one gets a root span. A `send` span (PRODUCER) per `ctx.enqueue`,
 * whose context the follow-up job carries. Spans go to the thread's registered tracer provider.
 */
export class AttemptTracing {
  readonly #tracer = trace.getTracer(TRACER_NAME);

  /**
   * Starts the span of an attempt of `job`, a traced tuple (with its queue and trace context).
   * Attributes: `messaging.system` `nudge`, `messaging.operation.type` `process`,
   * `messaging.destination.name` (the queue), `messaging.message.id` (the job id),
   * `nudge.job.kind` and `nudge.job.attempt`; {@link end} adds `nudge.job.outcome`.
   */
  begin(job: JobTuple): AttemptSpan {
    const [id, , kind, attempt] = job;
    const producer = remoteSpanContext(job[8]);
    const attributes = {
      'messaging.system': MESSAGING_SYSTEM,
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': job[7] ?? DEFAULT_QUEUE,
      'messaging.message.id': String(id),
      'nudge.job.kind': kind,
      'nudge.job.attempt': attempt,
    };
    const name = `process ${kind}`;
    let span: Span;
    if (producer && attempt <= 1) {
      const parent = trace.setSpanContext(ROOT_CONTEXT, producer);
      span = this.#tracer.startSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent);
    } else {
      span = this.#tracer.startSpan(
        name,
        {
          kind: SpanKind.CONSUMER,
          attributes,
          root: true,
          ...(producer ? { links: [{ context: producer }] } : {}),
        },
        ROOT_CONTEXT,
      );
    }
    return { span, context: trace.setSpan(ROOT_CONTEXT, span) };
  }

  /** Records an error the handler threw (the exception event and an error status). */
  recordError(attempt: AttemptSpan, error: unknown): void {
    const exception = error instanceof Error ? error : String(error);
    attempt.span.recordException(exception);
    attempt.span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
  }

  /** Ends the attempt's span with its outcome; an attempt that did not succeed or suspend is an error. */
  end(attempt: AttemptSpan, result: AttemptResult): void {
    const status = result[2];
    attempt.span.setAttribute('nudge.job.outcome', OUTCOMES[status]);
    if (status === AttemptStatus.threw || status === AttemptStatus.failedPermanently) {
      attempt.span.setStatus({ code: SpanStatusCode.ERROR, message: result[3] });
    }
    attempt.span.end();
  }

  /**
   * A `send` span (PRODUCER) for a follow-up of `kind` in `queue`, child of the attempt's span:
   * started and ended at once (the follow-up is written with the attempt's completion), and its
   * context as the follow-up's `trace_context` text.
   */
  send(attempt: AttemptSpan, kind: string, queue: string | undefined): string {
    const span = this.#tracer.startSpan(
      'send',
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': MESSAGING_SYSTEM,
          'messaging.operation.type': 'send',
          'messaging.operation.name': 'send',
          // Without a queue the kind's declared one applies, which this thread does not know.
          ...(queue === undefined ? {} : { 'messaging.destination.name': queue }),
          'nudge.job.kind': kind,
        },
      },
      attempt.context,
    );
    span.end();
    return traceContextOf(span);
  }

  /** Runs `fn` with the attempt's span active: the handler's spans become its children. */
  run<T>(attempt: AttemptSpan, fn: () => T): T {
    return context.with(attempt.context, fn);
  }
}
