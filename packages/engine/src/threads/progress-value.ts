import { findUnstorableJson, MAX_PROGRESS_BYTES, utf8BytesOver } from '@nudge/core';

function checkPercent(what: string, value: number): void {
  if (!Number.isFinite(value) || value < 0 || value > 100) {
    throw new RangeError(`ctx.progress: ${what} must be a number from 0 to 100 (got ${String(value)})`);
  }
}

/**
 * Checks a `ctx.progress` value and returns it as JSON text: a number from 0 to 100, or a plain
 * object of storable JSON whose optional `percent` is such a number, at most
 * `MAX_PROGRESS_BYTES` of JSON.
 * @throws TypeError when the value is not a number or a plain object, or holds something no
 *   dialect stores alike (U+0000, a lone surrogate, a non-finite number, a non-JSON value)
 * @throws RangeError when a number or `percent` is out of range, or the JSON is too large
 */
export function progressJsonOf(value: unknown): string {
  if (typeof value === 'number') {
    checkPercent('a progress number', value);
    return JSON.stringify(value);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new TypeError(
      `ctx.progress takes a number from 0 to 100 or a plain object such as { percent: 42, step: 'upload' } (got ${got})`,
    );
  }
  const percent = (value as { percent?: unknown }).percent;
  if (percent !== undefined) {
    if (typeof percent !== 'number') {
      throw new TypeError(`ctx.progress: percent must be a number from 0 to 100 (got a ${typeof percent})`);
    }
    checkPercent('percent', percent);
  }
  const problem = findUnstorableJson(value);
  if (problem)
    throw new TypeError(`ctx.progress: the value at "${problem.path}" cannot be stored: ${problem.reason}`);
  const json = JSON.stringify(value);
  const bytes = utf8BytesOver(json, MAX_PROGRESS_BYTES);
  if (bytes !== undefined) {
    throw new RangeError(
      `ctx.progress: the value is ${bytes} bytes of JSON, more than the limit of ${MAX_PROGRESS_BYTES}: report a percentage and a few words, not data`,
    );
  }
  return json;
}
