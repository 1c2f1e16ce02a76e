import { AbortFanOut } from './abort-fan-out.js';
import { NudgeApiError } from './nudge-api-error.js';
import { isTerminalStatus, type JobView } from './job-view.js';

/** Most ids one `GET /jobs?ids=` read takes (the route's limit). */
export const MAX_IDS_PER_READ = 100;

/** Options of one wait; see `NudgeClient.waitFor`. */
export interface WaitOptions {
  /** Longest wait, in ms; rejects with a {@link WaitTimeoutError} after it. @defaultValue no limit */
  readonly timeoutMs?: number;
  /** Stops waiting (rejects with the signal's reason) when it fires. */
  readonly signal?: AbortSignal;
  /**
   * Pause between reads, in ms. Waiters of one client share one read per pause, at the
   * shortest pause any of them asked for. @defaultValue the client's `pollIntervalMs`
   */
  readonly intervalMs?: number;
}

/** A wait ran out of time; `pending` are the jobs still unfinished, as last read. */
export class WaitTimeoutError extends Error {
  /** The ids that had not finished. */
  readonly ids: readonly number[];
  /** The last view read of each of them (missing before the first read). */
  readonly pending: readonly JobView[];

  constructor(timeoutMs: number, ids: readonly number[], pending: readonly JobView[], lastError?: Error) {
    const states = pending.slice(0, 5).map((view) => `#${view.id} ${view.status}`);
    const detail = states.length > 0 ? `: ${states.join(', ')}` : '';
    const failure = lastError ? ` (last read failed: ${lastError.message})` : '';
    super(`timed out after ${timeoutMs} ms waiting for ${ids.length} job(s) to finish${detail}${failure}`);
    this.name = 'WaitTimeoutError';
    this.ids = ids;
    this.pending = pending;
  }
}

/** The reason a signal fired, as an Error (an `AbortSignal.timeout` gives a DOMException, an Error). */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error(`waitFor aborted: ${String(reason)}`);
}

interface Waiter {
  readonly ids: readonly number[];
  readonly views: Map<number, JobView>;
  readonly remaining: Set<number>;
  readonly intervalMs: number;
  lastError: Error | undefined;
  settle(error: Error | undefined, views?: JobView[]): void;
}

/**
 * The one poller behind every `waitFor` of a client: each pause it reads every watched job with
 * `GET /jobs?ids=…` (up to 100 ids per request), whatever the number of waiters, and settles the
 * waiters whose jobs all reached `SUCCEEDED`, `FAILED` or `CANCELLED`. It polls only while
 * someone waits.
 */
export class JobPoller {
  readonly #read: (ids: readonly number[]) => Promise<JobView[]>;
  readonly #defaultIntervalMs: number;
  readonly #waiters = new Set<Waiter>();
  readonly #aborts = new AbortFanOut();
  #timer: NodeJS.Timeout | undefined;
  #reading = false;

  /** @param read - reads up to 100 jobs at once (unknown ids left out) */
  constructor(read: (ids: readonly number[]) => Promise<JobView[]>, defaultIntervalMs: number) {
    this.#read = read;
    this.#defaultIntervalMs = defaultIntervalMs;
  }

  /**
   * Resolves with the final view of each of `ids`, in the order given, once all are terminal.
   *
   * @throws WaitTimeoutError after `timeoutMs`
   * @throws NudgeApiError `JOB_NOT_FOUND` (404) when a job does not exist, or the error of a read
   *   the server refused (4xx); reads that fail otherwise (unreachable, 5xx) are tried again
   * @throws the signal's reason when `signal` fires
   */
  wait(ids: readonly number[], options: WaitOptions = {}): Promise<JobView[]> {
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (ids.length === 0) return Promise.resolve([]);
    return new Promise<JobView[]>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let unsubscribe = (): void => undefined;
      const waiter: Waiter = {
        ids,
        views: new Map(),
        remaining: new Set(ids),
        intervalMs: options.intervalMs ?? this.#defaultIntervalMs,
        lastError: undefined,
        settle: (error, views) => {
          if (!this.#waiters.delete(waiter)) return;
          clearTimeout(timer);
          unsubscribe();
          if (this.#waiters.size === 0) this.#stop();
          if (views) resolve(views);
          else reject(error ?? new Error('waitFor ended without a result'));
        },
      };
      this.#waiters.add(waiter);
      if (signal) unsubscribe = this.#aborts.subscribe(signal, () => waiter.settle(abortReason(signal)));
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          const pending = [...waiter.remaining].flatMap((id) => waiter.views.get(id) ?? []);
          waiter.settle(new WaitTimeoutError(timeoutMs, [...waiter.remaining], pending, waiter.lastError));
        }, timeoutMs);
      }
      // Waiters added in the same tick of the event loop share the first read.
      if (!this.#timer && !this.#reading) this.#schedule(0);
    });
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#tick();
    }, delayMs);
  }

  async #tick(): Promise<void> {
    this.#reading = true;
    try {
      const ids = [...new Set([...this.#waiters].flatMap((waiter) => [...waiter.remaining]))].sort(
        (a, b) => a - b,
      );
      for (let start = 0; start < ids.length; start += MAX_IDS_PER_READ) {
        await this.#readChunk(ids.slice(start, start + MAX_IDS_PER_READ));
      }
    } finally {
      this.#reading = false;
      if (this.#waiters.size > 0 && !this.#timer) {
        this.#schedule(Math.min(...[...this.#waiters].map((waiter) => waiter.intervalMs)));
      }
    }
  }

  async #readChunk(ids: readonly number[]): Promise<void> {
    const watching = (id: number) => [...this.#waiters].filter((waiter) => waiter.remaining.has(id));
    let views: JobView[];
    try {
      views = await this.#read(ids);
    } catch (error) {
      const refused = error instanceof NudgeApiError && error.status >= 400 && error.status < 500;
      for (const waiter of new Set(ids.flatMap(watching))) {
        if (refused) waiter.settle(error);
        else waiter.lastError = error as Error;
      }
      return;
    }
    const found = new Map(views.map((view) => [view.id, view]));
    for (const id of ids) {
      const view = found.get(id);
      for (const waiter of watching(id)) {
        if (!view) {
          waiter.settle(new NudgeApiError(404, 'JOB_NOT_FOUND', `no job has id ${id}`));
          continue;
        }
        waiter.lastError = undefined;
        waiter.views.set(id, view);
        if (isTerminalStatus(view.status)) waiter.remaining.delete(id);
        if (waiter.remaining.size === 0)
          waiter.settle(
            undefined,
            waiter.ids.map((each) => waiter.views.get(each) as JobView),
          );
      }
    }
  }
}
