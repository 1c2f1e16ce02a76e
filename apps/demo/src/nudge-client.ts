import type { JobView } from './job-view.js';

/** The server could not be reached at all (refused, reset, DNS, timeout). */
export class ServerUnreachableError extends Error {
  override readonly name = 'ServerUnreachableError';
}

/** Options of {@link NudgeClient}. */
export interface NudgeClientOptions {
  /** Longest wait for one HTTP response, in ms. @defaultValue 10000 */
  readonly requestTimeoutMs?: number;
}

function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** A small client for the nudge HTTP API: `POST /nudge` and `GET /jobs/:id`. */
export class NudgeClient {
  readonly #base: string;
  readonly #timeoutMs: number;

  /** @param baseUrl - the server's base URL, e.g. `http://127.0.0.1:3000` */
  constructor(baseUrl: string, options: NudgeClientOptions = {}) {
    this.#base = baseUrl.replace(/\/+$/, '');
    this.#timeoutMs = options.requestTimeoutMs ?? 10_000;
  }

  async #request(method: 'GET' | 'POST', path: string): Promise<Response> {
    try {
      return await fetch(`${this.#base}${path}`, { method, signal: AbortSignal.timeout(this.#timeoutMs) });
    } catch (error) {
      throw new ServerUnreachableError(`cannot reach the nudge server at ${this.#base}: ${reason(error)}`, {
        cause: error,
      });
    }
  }

  /**
   * Asks the server to claim pending jobs now instead of at its next poll (`POST /nudge`, 202).
   *
   * @throws ServerUnreachableError when the server cannot be reached
   * @throws Error on any other status than 2xx
   */
  async nudge(): Promise<void> {
    const response = await this.#request('POST', '/nudge');
    await response.body?.cancel();
    if (!response.ok) throw new Error(`POST ${this.#base}/nudge answered ${response.status}`);
  }

  /**
   * Reads one job (`GET /jobs/:id`).
   *
   * @throws ServerUnreachableError when the server cannot be reached
   * @throws Error when the server does not know the job (another database?) or answers another error
   */
  async getJob(id: number): Promise<JobView> {
    const response = await this.#request('GET', `/jobs/${id}`);
    if (response.status === 404) {
      await response.body?.cancel();
      throw new Error(`the server at ${this.#base} has no job ${id}: does it use the same DATABASE_URL?`);
    }
    if (!response.ok) {
      const text = (await response.text()).slice(0, 200);
      throw new Error(`GET ${this.#base}/jobs/${id} answered ${response.status}: ${text}`);
    }
    return (await response.json()) as JobView;
  }
}
