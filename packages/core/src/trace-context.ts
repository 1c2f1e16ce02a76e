/**
 * A W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` header's value
 * (`00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`) and, when there is one, the
 * `tracestate` header's (vendor entries, `key=value` joined by commas).
 */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/**
 * Most list-members a `tracestate` may have; one with more is dropped whole (W3C Trace Context,
 * §3.3.1.1 "tracestate Header Field Values": a parser must discard such a header).
 */
export const MAX_TRACESTATE_MEMBERS = 32;

/**
 * Longest `tracestate` kept, in characters: the length the W3C Trace Context (§3.3.1.5) asks
 * every vendor to propagate; a longer one is dropped whole rather than cut.
 */
export const MAX_TRACESTATE_LENGTH = 512;

/** A `tracestate` key: simple, or `tenant@system` (W3C Trace Context §3.3.1.3.1). */
const TRACESTATE_KEY =
  /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})$/;

/** A `tracestate` value: 1 to 256 printable ASCII characters but `,` and `=`, no trailing space. */
const TRACESTATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/**
 * `tracestate` as kept with a job: its list-members, empty ones and surrounding spaces and tabs
 * left out, joined by commas; or `undefined` when it has none, is malformed (a key or value
 * outside the W3C grammar, a key twice), has more than {@link MAX_TRACESTATE_MEMBERS} members or
 * is longer than {@link MAX_TRACESTATE_LENGTH} characters. Dropping it never refuses the job.
 */
export function boundedTracestate(tracestate: string): string | undefined {
  if (tracestate.length > MAX_TRACESTATE_LENGTH) return undefined;
  const members = tracestate
    .split(',')
    .map((member) => member.replace(/^[ \t]+|[ \t]+$/g, ''))
    .filter((member) => member !== '');
  if (members.length === 0 || members.length > MAX_TRACESTATE_MEMBERS) return undefined;
  const keys = new Set<string>();
  for (const member of members) {
    const eq = member.indexOf('=');
    const key = member.slice(0, eq);
    if (
      eq <= 0 ||
      !TRACESTATE_KEY.test(key) ||
      !TRACESTATE_VALUE.test(member.slice(eq + 1)) ||
      keys.has(key)
    ) {
      return undefined;
    }
    keys.add(key);
  }
  return members.join(',');
}

/** A version-00 `traceparent` with a trace id and a parent id that are not all zeros. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Whether `value` is a `traceparent` this version of the W3C Trace Context allows. */
export function isTraceparent(value: unknown): value is string {
  return typeof value === 'string' && TRACEPARENT.test(value);
}

/**
 * The `trace_context` column's text for `context`: JSON of `{ traceparent, tracestate? }`
 * (`tracestate` left out when absent, or not within {@link boundedTracestate}'s bounds).
 * Plain-SQL producers write the same form.
 * @example traceContextText({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' })
 *   // '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}'
 */
export function traceContextText(context: TraceContext): string {
  const tracestate = context.tracestate === undefined ? undefined : boundedTracestate(context.tracestate);
  return JSON.stringify(
    tracestate ? { traceparent: context.traceparent, tracestate } : { traceparent: context.traceparent },
  );
}

/**
 * The trace context of a `trace_context` text, or `undefined` for one that is absent, not JSON
 * of that form, or whose `traceparent` is not valid: such a job's attempts start traces of their
 * own (a producer writing the column by hand cannot stop its job from running). A `tracestate`
 * out of {@link boundedTracestate}'s bounds is left out.
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
  const kept = typeof tracestate === 'string' ? boundedTracestate(tracestate) : undefined;
  return kept === undefined ? { traceparent } : { traceparent, tracestate: kept };
}

/**
 * `text` as stored in the `trace_context` column: re-written by {@link traceContextText} from
 * what {@link parseTraceContext} reads (so a `tracestate` out of bounds is dropped, never the
 * job), or `undefined` for none, or text with no valid `traceparent`.
 */
export function storedTraceContext(text: string | undefined): string | undefined {
  const context = parseTraceContext(text);
  return context === undefined ? undefined : traceContextText(context);
}

/**
 * Why `value` cannot be a job's `traceContext` (see {@link traceContextText}), or `undefined` when
 * it can: text that {@link parseTraceContext} reads. Its `tracestate` is not checked here: one out
 * of bounds is dropped when the job is stored ({@link storedTraceContext}).
 */
export function traceContextProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || !parseTraceContext(value)) {
    return 'must be JSON text of { traceparent, tracestate? } with a W3C traceparent';
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
