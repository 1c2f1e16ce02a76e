/**
 * Every stable error code nudge reports, with the HTTP status it maps to and what it means.
 * `docs/reference/errors.md` lists the same codes; a test fails when the two disagree.
 */
export const ERROR_CODES = {
  INVALID_REQUEST: { status: 400, summary: 'The body, params or query do not match the route schema.' },
  INVALID_JSON: { status: 400, summary: 'The body is not valid JSON.' },
  UNKNOWN_KIND: { status: 400, summary: 'No handler is registered for the job kind.' },
  PAYLOAD_TOO_DEEP: {
    status: 400,
    summary: 'The payload nests arrays and objects deeper than 100 levels; flatten it.',
  },
  PAYLOAD_UNSTORABLE: {
    status: 400,
    summary:
      'The payload (or the kind) holds what no dialect stores as sent: U+0000, a lone UTF-16 surrogate, or a number that is not finite.',
  },
  INVALID_BATCH: {
    status: 400,
    summary: 'One or more jobs of a batch are invalid; `errors` names each by index. Nothing was written.',
  },
  PAYLOAD_INVALID: {
    status: 400,
    summary: "The payload does not match the JSON Schema the kind's handler declares.",
  },
  DEPENDENCY_NOT_FOUND: {
    status: 400,
    summary: 'A `dependsOn` id names no job (never created, or deleted by retention). Nothing was written.',
  },
  STEP_NOT_FOUND: {
    status: 400,
    summary: "A retry's `fromStep` names no step the job has recorded. Nothing was changed.",
  },
  JOB_STATE_CONFLICT: {
    status: 409,
    summary:
      'The job is in a status the operation does not apply to (cancel a finished job, retry a running one).',
  },
  DEPENDENCY_FAILED: {
    status: 409,
    summary:
      "A retry of a job that cancels on a failed dependency (`onDependencyFailure: 'cancel'`) while one of its dependencies ended `FAILED` or `CANCELLED`, or no longer exists: it would be cancelled again.",
  },
  DEBOUNCE_OWNED_BY_OTHER_KEY: {
    status: 409,
    summary:
      'A debounced job waits under that kind and key, enqueued by another API key: only that key or an admin key may replace it.',
  },
  IDEMPOTENCY_KEY_CONFLICT: {
    status: 409,
    summary:
      'A job of that kind and idempotency key exists with other `dependsOn`: the repeat would be answered with a job that waits for other jobs.',
  },
  UNAUTHORIZED: {
    status: 401,
    summary: 'API keys are configured and the request has no valid `Authorization: Bearer <key>`.',
  },
  FORBIDDEN: { status: 403, summary: "The API key is valid but lacks the route's scope." },
  RATE_LIMITED: {
    status: 429,
    summary: 'The API key (or client address) sent more requests than its limit per minute.',
  },
  JOB_NOT_FOUND: { status: 404, summary: 'No job has that id.' },
  ROUTE_NOT_FOUND: { status: 404, summary: 'No route matches the method and path.' },
  BODY_TOO_LARGE: { status: 413, summary: 'The body is larger than the configured limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, summary: 'The body is not `application/json`.' },
  NOT_READY: { status: 503, summary: 'The database is unreachable or its schema is not current.' },
  INTERNAL_ERROR: { status: 500, summary: 'An unexpected failure; the server log has the details.' },
  INVALID_CONFIG: { status: 500, summary: 'A setting is invalid; the service refuses to start.' },
  SCHEMA_TOO_NEW: {
    status: 500,
    summary: 'The database was migrated by a newer nudge; upgrade this instance.',
  },
  HANDLERS_INVALID: { status: 500, summary: 'The handler module failed to load or exports no handler.' },
  STEP_NAME_REPEATED: {
    status: 400,
    summary:
      'A handler used one name twice in one attempt for `ctx.step`, `ctx.sleep` or `ctx.waitForSignal`; names are unique within a job.',
  },
  LEASE_LOST: {
    status: 409,
    summary:
      "A handler's step write was fenced out: the attempt's lease was lost (it expired, the job was cancelled, or another attempt took it over), and nothing was recorded.",
  },
} as const satisfies Record<string, { status: number; summary: string }>;

/** One of the keys of {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;
