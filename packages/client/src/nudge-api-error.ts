/** One refused job of a batch, as `400 INVALID_BATCH` lists them. */
export interface BatchProblem {
  /** Index of the job in the batch. */
  readonly index: number;
  /** The code a single `POST /jobs` of that job would answer, such as `UNKNOWN_KIND`. */
  readonly code: string;
  readonly message: string;
}

/**
 * The server answered with an error status. `code` is the stable code of the error body (see
 * `docs/reference/errors.md`), such as `JOB_NOT_FOUND` or `JOB_STATE_CONFLICT`; `HTTP_<status>` when the
 * body carried none (a proxy's page).
 */
export class NudgeApiError extends Error {
  /** The HTTP status, such as 404. */
  readonly status: number;
  readonly code: string;
  /** `INVALID_BATCH` only: every refused job of the batch. */
  readonly errors: readonly BatchProblem[] | undefined;

  constructor(status: number, code: string, message: string, errors?: readonly BatchProblem[]) {
    super(message);
    this.name = 'NudgeApiError';
    this.status = status;
    this.code = code;
    this.errors = errors;
  }
}

/**
 * The server could not be reached at all (refused, reset, DNS failure, or no answer within the
 * request timeout); the message names the URL.
 */
export class NudgeUnreachableError extends Error {
  /** The URL of the request. */
  readonly url: string;

  constructor(url: string, cause: unknown) {
    super(`cannot reach the nudge server at ${url}: ${describeFailure(cause)}`, { cause });
    this.name = 'NudgeUnreachableError';
    this.url = url;
  }
}

/** The most telling part of a `fetch` failure: the socket error's code, else the message. */
function describeFailure(error: unknown): string {
  if ((error as { name?: unknown } | null)?.name === 'TimeoutError') return 'no answer within the timeout';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
