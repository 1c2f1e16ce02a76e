import { NudgeError } from '@nudge/core';

/**
 * Where the next page of `GET /stats` starts, per list: after a name, from the first
 * (`undefined`), or nowhere, the list being done (`null`).
 */
export interface StatsCursor {
  readonly kind: string | null | undefined;
  readonly queue: string | null | undefined;
}

/** The first page: both lists from their first name. */
export const FIRST_STATS_PAGE: StatsCursor = { kind: undefined, queue: undefined };

/**
 * The `nextCursor` of a `GET /stats` page whose lists ended at `kind` and `queue` (`null`: done):
 * base64url JSON, opaque to callers; `null` when both are done.
 */
export function encodeStatsCursor(kind: string | null, queue: string | null): string | null {
  if (kind === null && queue === null) return null;
  return Buffer.from(JSON.stringify([kind, queue])).toString('base64url');
}

/**
 * Reads a `cursor` of `GET /stats`.
 * @throws NudgeError `INVALID_REQUEST` when `text` is not a `nextCursor` this route wrote
 */
export function decodeStatsCursor(text: string): StatsCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString());
  } catch {
    value = undefined;
  }
  const name = (each: unknown) => each === null || typeof each === 'string';
  if (!Array.isArray(value) || value.length !== 2 || !value.every(name) || value.every((v) => v === null)) {
    throw new NudgeError(
      'INVALID_REQUEST',
      'querystring/cursor must be the nextCursor of the previous GET /stats page, unchanged',
    );
  }
  return { kind: value[0], queue: value[1] };
}
