import { Type } from '@sinclair/typebox';
import { EXPECTED_KEYWORD } from './describe-value-error.js';

/** Names per page of `GET /queues`, and kinds and queues per page of `GET /stats`, by default. */
export const DEFAULT_NAME_PAGE_LIMIT = 100;
/** Most names per page of `GET /queues` and `GET /stats`. */
export const MAX_NAME_PAGE_LIMIT = 500;

/**
 * The `limit` query parameter of a page of names, as text: a whole number from `min` (0 or 1) to
 * {@link MAX_NAME_PAGE_LIMIT} (the pattern spells out 1 to 500).
 */
export function namePageLimitSchema(min: 0 | 1, description: string) {
  return Type.Optional(
    Type.String({
      pattern: `^(?:${min === 0 ? '0|' : ''}[1-9]|[1-9][0-9]|[1-4][0-9]{2}|500)$`,
      [EXPECTED_KEYWORD]: `a whole number from ${min} to ${MAX_NAME_PAGE_LIMIT}`,
      description: `${description} Default ${DEFAULT_NAME_PAGE_LIMIT}, at most ${MAX_NAME_PAGE_LIMIT}.`,
    }),
  );
}

/** The page size a `limit` parameter (checked by {@link namePageLimitSchema}) asks for. */
export function namePageLimit(text: string | undefined): number {
  return text === undefined ? DEFAULT_NAME_PAGE_LIMIT : Number(text);
}
