/**
 * Largest result a handler may return, in bytes of its JSON text (UTF-8): 1 MiB, the same as the
 * HTTP API's default body limit for a payload. A larger result fails its attempt permanently
 * (retrying would return the same result), with a message naming the limit and the size.
 */
export const MAX_RESULT_BYTES = 1_048_576;

/**
 * Largest progress value (`ctx.progress`) in bytes of its JSON text (UTF-8): 4 KiB. Progress is
 * written while the job runs, often: it is meant for a percentage and a few words, not data.
 */
export const MAX_PROGRESS_BYTES = 4096;

/** Most follow-up jobs one attempt may record with `ctx.enqueue`. */
export const MAX_FOLLOW_UPS = 1000;

/** Bytes of `text` in UTF-8; counts only when the length alone cannot decide against `limit`. */
export function utf8BytesOver(text: string, limit: number): number | undefined {
  // A UTF-16 code unit takes 1 to 3 UTF-8 bytes: short text is under the limit for sure.
  if (text.length * 3 <= limit) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > limit ? bytes : undefined;
}
