/**
 * A W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` header's value
 * (`00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`) and, when there is one, the
 * `tracestate` header's (vendor entries, `key=value` joined by commas).
 */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** Longest `trace_context` text a job may carry, in characters (a traceparent is 55). */
export const MAX_TRACE_CONTEXT_LENGTH = 1024;

/** A version-00 `traceparent` with a trace id and a parent id that are not all zeros. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Whether `value` is a `traceparent` this version of the W3C Trace Context allows. */
export function isTraceparent(value: unknown): value is string {
  return typeof value === 'string' && TRACEPARENT.test(value);
}

/**
 * The `trace_context` column's text for `context`: JSON of `{ traceparent, tracestate? }`
 * (`tracestate` left out when absent or empty). Plain-SQL producers write the same form.
 * @example traceContextText({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' })
 *   // '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}'
 */
export function traceContextText(context: TraceContext): string {
  return JSON.stringify(
    context.tracestate
      ? { traceparent: context.traceparent, tracestate: context.tracestate }
      : { traceparent: context.traceparent },
  );
}

/**
 * The trace context of a `trace_context` text, or `undefined` for one that is absent, not JSON
 * of that form, or whose `traceparent` is not valid: such a job's attempts start traces of their
 * own (a producer writing the column by hand cannot stop its job from running).
 */
export function parseTraceContext(text: string | null | undefined): TraceContext | undefined {
  if (typeof text !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { traceparent, tracestate } = value as Record<string, unknown>;
  if (!isTraceparent(traceparent)) return undefined;
  return typeof tracestate === 'string' && tracestate !== '' ? { traceparent, tracestate } : { traceparent };
}

/**
 * Why `value` cannot be a job's `traceContext` (see {@link traceContextText}), or `undefined` when
 * it can: text of at most {@link MAX_TRACE_CONTEXT_LENGTH} characters that
 * {@link parseTraceContext} reads.
 */
export function traceContextProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_TRACE_CONTEXT_LENGTH || !parseTraceContext(value)) {
    return `must be JSON text of { traceparent, tracestate? } with a W3C traceparent, at most ${MAX_TRACE_CONTEXT_LENGTH} characters`;
  }
  return undefined;
}

/** The parts of an OpenTelemetry `SpanContext` that {@link spanTraceContextText} reads. */
export interface SpanContextLike {
  readonly traceId: string;
  readonly spanId: string;
  /** The trace flags, a byte (`1`: sampled). */
  readonly traceFlags: number;
  readonly traceState?: { serialize(): string } | undefined;
}

/** The `trace_context` text naming the span of `spanContext` as the parent (see {@link traceContextText}). */
export function spanTraceContextText(spanContext: SpanContextLike): string {
  const { traceId, spanId, traceFlags, traceState } = spanContext;
  const traceparent = `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
  const tracestate = traceState?.serialize();
  return traceContextText(tracestate ? { traceparent, tracestate } : { traceparent });
}

/** The parts of an OpenTelemetry `Span` that {@link recordSpanError} calls. */
export interface ErrorRecordingSpan {
  recordException(exception: Error): void;
  setStatus(status: { code: number; message?: string }): void;
}

/** `SpanStatusCode.ERROR` of `@opentelemetry/api` (UNSET 0, OK 1, ERROR 2): core does not depend on it. */
const SPAN_STATUS_ERROR = 2;

/**
 * Records `error` on `span` as an exception event and an error status whose message is the
 * error's (a thrown string becomes an `Error` of that text).
 */
export function recordSpanError(span: ErrorRecordingSpan, error: unknown): void {
  const exception =
    error instanceof Error
      ? error
      : new Error(typeof error === 'string' ? error : 'a value that is not an Error was thrown');
  span.recordException(exception);
  span.setStatus({ code: SPAN_STATUS_ERROR, message: exception.message });
}
