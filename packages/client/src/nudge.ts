import { NudgeUnreachableError, NudgeApiError } from './nudge-api-error.js';

/** Options of {@link nudge}. */
export interface NudgeOptions {
  /** Longest wait for the answer, in ms. @defaultValue 1000 */
  readonly timeoutMs?: number;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** The `fetch` to use. @defaultValue `globalThis.fetch` */
  readonly fetch?: typeof fetch;
  /** Told about a failed nudge (for a log line); its own errors are ignored. */
  readonly onError?: (error: Error) => void;
}

/** What a nudge did: the server accepted it, or why not. */
export type NudgeOutcome = { readonly ok: true } | { readonly ok: false; readonly error: Error };

/** Default of {@link NudgeOptions.timeoutMs}, in ms. */
export const DEFAULT_NUDGE_TIMEOUT_MS = 1000;

/**
 * Asks the server at `baseUrl` to claim due jobs now (`POST /nudge`) instead of at its next poll:
 * call it after the transaction that enqueued jobs has committed. A nudge is only a hint (the
 * jobs are committed and a server's poll finds them anyway), so it never throws or rejects.
 *
 * @param baseUrl - the server's base URL, such as `http://127.0.0.1:3000`
 * @returns `{ ok: true }` on a 2xx answer; `{ ok: false, error }` (a `NudgeUnreachableError` or
 *   `NudgeApiError`) otherwise, after calling `onError`
 */
export async function nudge(baseUrl: string, options: NudgeOptions = {}): Promise<NudgeOutcome> {
  const url = `${baseUrl.replace(/\/+$/, '')}/nudge`;
  let error: Error;
  try {
    const response = await (options.fetch ?? fetch)(url, {
      method: 'POST',
      headers: options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` },
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_NUDGE_TIMEOUT_MS),
    });
    await response.body?.cancel().catch(() => undefined);
    if (response.ok) return { ok: true };
    error = new NudgeApiError(
      response.status,
      `HTTP_${response.status}`,
      `POST ${url} answered ${response.status}`,
    );
  } catch (cause) {
    error = new NudgeUnreachableError(url, cause);
  }
  try {
    options.onError?.(error);
  } catch {
    // A hint's error hook must not turn the hint into a failure.
  }
  return { ok: false, error };
}
