import type { AbortReason } from '../attempt.js';

/**
 * Describes a thread's death for `last_error`, naming the cause an operator can act on: out of
 * memory, terminated after a timeout, or a crash or exit. `jobTimeoutMs` is the timeout of the
 * attempt's kind, in ms.
 */
export function describeThreadFailure(
  error: unknown,
  context: { reason: AbortReason | undefined; jobTimeoutMs: number; maxOldGenerationSizeMb: number },
): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (context.reason === 'timeout') {
    return `timed out after ${context.jobTimeoutMs} ms and ignored its abort signal; the handler's thread was terminated`;
  }
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return `the handler's thread ran out of memory (limit ${context.maxOldGenerationSizeMb} MB) and was replaced: ${message}`;
  }
  return `the handler's thread crashed and was replaced: ${message}`;
}
