import type { JsonValue } from '@nudge/core';
import { injectTraceHeaders } from './producer-tracing.js';
import type { JobInput } from './job-input.js';
import { JobPoller, type WaitOptions } from './job-poller.js';
import type { EnqueuedJobView, JobView } from './job-view.js';
import type { JobPage, ListJobsQuery } from './job-page.js';

export type { JobPage, ListJobsQuery } from './job-page.js';
import {
  bulkFilterBody,
  type CancelAllFilter,
  type RetryAllFilter,
  type RetryStepsOptions,
} from './bulk-command-filters.js';
import { nudge, type NudgeOptions, type NudgeOutcome } from './nudge.js';
import { NudgeApiError, NudgeUnreachableError, type BatchProblem } from './nudge-api-error.js';
import type { SentSignalView } from './signal-view.js';
import type { JobLogsQuery, JobLogsView } from './job-logs-view.js';

/** Options of {@link createClient}. */
export interface NudgeClientOptions {
  /** The server's base URL, such as `http://127.0.0.1:3000`. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` with every request. */
  readonly apiKey?: string;
  /** Longest wait for one response, in ms. @defaultValue 10000 */
  readonly timeoutMs?: number;
  /** Pause between the reads behind `waitFor`, in ms. @defaultValue 500 */
  readonly pollIntervalMs?: number;
  /** The `fetch` to use. @defaultValue `globalThis.fetch` */
  readonly fetch?: typeof fetch;
}

/** A job for `POST /jobs`: {@link JobInput} without `delayMs` (the API takes a `runAt`). */
export type HttpJobInput<K extends string = string, P = JsonValue> = Omit<JobInput<K, P>, 'delayMs'>;

/** A job of any kind of `Payloads`, discriminated by `kind` (see `JobFor`). */
export type HttpJobFor<Payloads extends object> = {
  [K in keyof Payloads & string]: HttpJobInput<K, Payloads[K]>;
}[keyof Payloads & string];

/** Default of {@link NudgeClientOptions.timeoutMs}, in ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Default of {@link NudgeClientOptions.pollIntervalMs}, in ms. */
export const DEFAULT_POLL_INTERVAL_MS = 500;

function toBody(job: HttpJobInput<string, unknown>): Record<string, unknown> {
  const { runAt, ...rest } = job;
  return runAt instanceof Date ? { ...rest, runAt: runAt.toISOString() } : { ...job };
}

/**
 * A client of the nudge HTTP API. Every method throws a {@link NudgeApiError} (with the
 * answer's `status`, `code`, `message`, and `errors` for `INVALID_BATCH`) when the server
 * answers an error, and a {@link NudgeUnreachableError} naming the URL when it cannot be reached.
 *
 * @typeParam Payloads - kind → payload type map (such as `PayloadsOf<typeof handlers>`), so that
 *   `enqueue` checks each kind's payload at compile time
 */
export class NudgeClient<Payloads extends object = Record<string, JsonValue>> {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly #apiKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;
  readonly #poller: JobPoller;

  /** See {@link createClient}. @throws TypeError when `baseUrl` is not a URL */
  constructor(options: NudgeClientOptions) {
    if (typeof options.baseUrl !== 'string' || !URL.canParse(options.baseUrl)) {
      throw new TypeError(
        `baseUrl must be a URL such as http://127.0.0.1:3000 (got ${String(options.baseUrl)})`,
      );
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#fetch = options.fetch ?? fetch;
    this.#poller = new JobPoller(
      (ids) => this.#readWhole(ids),
      options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    );
  }

  /** The jobs of `ids` with payload and result, following the cursor of an answer cut for size. */
  async #readWhole(ids: readonly number[]): Promise<JobView[]> {
    const views: JobView[] = [];
    let cursor: string | null = null;
    do {
      const after: string = cursor === null ? '' : `&cursor=${cursor}`;
      const page = await this.#request<JobPage>(
        'GET',
        `/jobs?ids=${ids.join(',')}&fields=payload,result${after}`,
      );
      views.push(...(page.jobs as JobView[]));
      cursor = page.nextCursor;
    } while (cursor !== null);
    return views;
  }

  async #send<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const url = `${this.baseUrl}${path}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.#apiKey !== undefined) headers.authorization = `Bearer ${this.#apiKey}`;
    injectTraceHeaders(headers);
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new NudgeUnreachableError(url, error);
    }
    if (response.ok) return { status: response.status, body: JSON.parse(text) as T };
    let parsed: { code?: unknown; message?: unknown; errors?: unknown } = {};
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      // Not a nudge error body (a proxy's page): the status says what there is to say.
    }
    throw new NudgeApiError(
      response.status,
      typeof parsed.code === 'string' ? parsed.code : `HTTP_${response.status}`,
      typeof parsed.message === 'string'
        ? parsed.message
        : `${method} ${url} answered ${response.status}: ${text.slice(0, 200)}`,
      Array.isArray(parsed.errors) ? (parsed.errors as BatchProblem[]) : undefined,
    );
  }

  async #request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    return (await this.#send<T>(method, path, body)).body;
  }

  /**
   * Enqueues one job (`POST /jobs`); the server starts it at once when it has a free slot.
   *
   * @returns the job's view, with `created: false` when its idempotency key existed
   * @throws NudgeApiError `INVALID_REQUEST`, `UNKNOWN_KIND`, `PAYLOAD_TOO_DEEP`, … (400)
   */
  async enqueue<Job extends HttpJobFor<Payloads>>(
    job: Job,
  ): Promise<EnqueuedJobView<Payloads[Job['kind'] & keyof Payloads]>> {
    type Payload = Payloads[Job['kind'] & keyof Payloads];
    // POST /jobs tells a created job (201) from an existing one (200) by its status only.
    const { status, body } = await this.#send<JobView<Payload>>('POST', '/jobs', toBody(job));
    return { ...body, created: status === 201 };
  }

  /**
   * Enqueues up to 1,000 jobs all or nothing (`POST /jobs/batch`).
   *
   * @returns each job's view in input order, with `created`
   * @throws NudgeApiError `INVALID_BATCH` (400) whose `errors` names every refused job by index;
   *   nothing was written
   */
  async enqueueMany(jobs: ReadonlyArray<HttpJobFor<Payloads>>): Promise<EnqueuedJobView[]> {
    const body = { jobs: (jobs as ReadonlyArray<HttpJobInput<string, unknown>>).map(toBody) };
    return (await this.#request<{ jobs: EnqueuedJobView[] }>('POST', '/jobs/batch', body)).jobs;
  }

  /**
   * Reads one job (`GET /jobs/:id`).
   *
   * @throws NudgeApiError `JOB_NOT_FOUND` (404)
   */
  get(id: number): Promise<JobView> {
    return this.#request<JobView>('GET', `/jobs/${id}`);
  }

  /**
   * Reads one page of a job's log (`GET /jobs/:id/logs`, scope `read`): lines after `after`,
   * oldest first, at most `limit`; pass the page's `cursor` as `after` for the next one.
   *
   * @throws NudgeApiError `JOB_NOT_FOUND` (404); `INVALID_REQUEST` (400) for a bad `after` or `limit`
   */
  logs(id: number, query: JobLogsQuery = {}): Promise<JobLogsView> {
    const params = new URLSearchParams();
    if (query.after !== undefined) params.set('after', String(query.after));
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    const search = params.size > 0 ? `?${params.toString()}` : '';
    return this.#request<JobLogsView>('GET', `/jobs/${id}/logs${search}`);
  }

  /**
   * Reads one page of jobs, newest first (`GET /jobs`), filtered by `status`, `kind` and
   * `queue`; pass the page's `nextCursor` as `cursor` for the next one. Jobs come without
   * `payload` and `result` unless `fields` names them.
   *
   * @throws NudgeApiError `INVALID_REQUEST` (400) for a bad filter or limit
   */
  list(query: ListJobsQuery = {}): Promise<JobPage> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      if (name !== 'fields') params.set(name, String(value));
      else if ((value as readonly string[]).length > 0)
        params.set(name, (value as readonly string[]).join(','));
    }
    const search = params.size > 0 ? `?${params.toString()}` : '';
    return this.#request<JobPage>('GET', `/jobs${search}`);
  }

  /**
   * Waits until a job, or every job of a list, is `SUCCEEDED`, `FAILED` or `CANCELLED`. Every
   * wait of this client shares one poller, which reads all watched jobs with `GET /jobs?ids=…`
   * (100 ids per request) once per `intervalMs`, however many waits there are.
   *
   * @returns the final view (or views, in the order of `ids`)
   * @throws WaitTimeoutError after `timeoutMs`; the signal's reason when `signal` fires
   * @throws NudgeApiError `JOB_NOT_FOUND` (404) when a job does not exist; reads that fail for
   *   another reason (unreachable server, 5xx) are tried again until the timeout
   */
  waitFor(id: number, options?: WaitOptions): Promise<JobView>;
  waitFor(ids: readonly number[], options?: WaitOptions): Promise<JobView[]>;
  async waitFor(
    idOrIds: number | readonly number[],
    options: WaitOptions = {},
  ): Promise<JobView | JobView[]> {
    if (typeof idOrIds === 'number') return (await this.#poller.wait([idOrIds], options))[0] as JobView;
    return this.#poller.wait(idOrIds, options);
  }

  /**
   * Cancels a job that has not finished (`POST /jobs/:id/cancel`).
   *
   * @returns the job's view after the change
   * @throws NudgeApiError `JOB_STATE_CONFLICT` (409) when the job already finished;
   *   `JOB_NOT_FOUND` (404)
   */
  cancel(id: number): Promise<JobView> {
    return this.#request<JobView>('POST', `/jobs/${id}/cancel`);
  }

  /**
   * Sends the signal `name` with `payload` to a job (`POST /jobs/:id/signals`, scope `enqueue`): a
   * job `WAITING` for it in `ctx.waitForSignal` is released at once; one that waits later gets it
   * then. With `signalId`, sending again stores nothing and answers the first signal.
   *
   * @returns the signal, `created: false` for a repeat of `signalId`
   * @throws NudgeApiError `JOB_NOT_FOUND` (404); `JOB_STATE_CONFLICT` (409) when the job has
   *   finished; `INVALID_REQUEST`, `PAYLOAD_TOO_DEEP` or `PAYLOAD_UNSTORABLE` (400)
   */
  async signal(
    jobId: number,
    name: string,
    payload?: JsonValue,
    options: { readonly signalId?: string } = {},
  ): Promise<SentSignalView> {
    const { signalId } = options;
    const body = {
      name,
      ...(payload === undefined ? {} : { payload }),
      ...(signalId === undefined ? {} : { signalId }),
    };
    const sent = await this.#send<Omit<SentSignalView, 'created'>>('POST', `/jobs/${jobId}/signals`, body);
    return { ...sent.body, created: sent.status === 201 };
  }

  /**
   * Runs a `FAILED` or `CANCELLED` job again (`POST /jobs/:id/retry`); a job with a dependency
   * that has not finished waits for it (`WAITING`). Its finished steps are kept, so it resumes
   * where it failed, unless `options` clears them (`{ fromStep: 'charge' }`: that step and the
   * ones after it; `{ resetSteps: true }`: all of them).
   *
   * @returns the job's view after the change
   * @throws NudgeApiError `JOB_STATE_CONFLICT` (409) when the job is not failed or cancelled;
   *   `DEPENDENCY_FAILED` (409) when it cancels on a failed dependency and one ended `FAILED` or
   *   `CANCELLED`; `JOB_NOT_FOUND` (404); `STEP_NOT_FOUND` (400) when the job recorded no step
   *   named `fromStep`; `INVALID_REQUEST` (400) for both options at once. Nothing changed then.
   */
  retry(id: number, options?: RetryStepsOptions): Promise<JobView> {
    return this.#request<JobView>('POST', `/jobs/${id}/retry`, options);
  }

  /**
   * Retries every `FAILED` (or `CANCELLED`) job matching `filter` that finished before the call
   * (`POST /jobs/retry`): `PENDING` again with fresh attempts, as {@link retry} does for one,
   * their steps kept or cleared as `filter`'s `fromStep` or `resetSteps` say. The server works in
   * pages of at most 1,000 jobs per statement.
   *
   * @returns how many jobs were retried
   * @throws NudgeApiError `INVALID_REQUEST` (400) for a bad filter (nothing changed);
   *   `FORBIDDEN` (403) without the `admin` scope
   */
  async retryAll(filter: RetryAllFilter): Promise<number> {
    return (await this.#request<{ retried: number }>('POST', '/jobs/retry', bulkFilterBody(filter))).retried;
  }

  /**
   * Cancels every unfinished job matching `filter` (`POST /jobs/cancel`), as {@link cancel} does
   * for one: a running attempt is aborted. `{}` cancels every unfinished job. The server works in
   * pages of at most 1,000 jobs per statement.
   *
   * @returns how many jobs were cancelled
   * @throws NudgeApiError `INVALID_REQUEST` (400) for a bad filter (nothing changed);
   *   `FORBIDDEN` (403) without the `admin` scope
   */
  async cancelAll(filter: CancelAllFilter): Promise<number> {
    return (await this.#request<{ cancelled: number }>('POST', '/jobs/cancel', bulkFilterBody(filter)))
      .cancelled;
  }

  /** {@link nudge} on this client's server, with its API key and `fetch`; never throws. */
  nudge(options: Omit<NudgeOptions, 'apiKey' | 'fetch'> = {}): Promise<NudgeOutcome> {
    return nudge(this.baseUrl, { ...options, apiKey: this.#apiKey, fetch: this.#fetch });
  }
}

/**
 * Creates a {@link NudgeClient}.
 *
 * @example
 * const client = createClient<PayloadsOf<typeof handlers>>({ baseUrl: 'http://127.0.0.1:3000' });
 * const job = await client.enqueue({ kind: 'sendEmail', payload: { to: 'a@example.com' } });
 * const done = await client.waitFor(job.id, { timeoutMs: 30_000 });
 * @throws TypeError when `baseUrl` is not a URL
 */
export function createClient<Payloads extends object = Record<string, JsonValue>>(
  options: NudgeClientOptions,
): NudgeClient<Payloads> {
  return new NudgeClient<Payloads>(options);
}
