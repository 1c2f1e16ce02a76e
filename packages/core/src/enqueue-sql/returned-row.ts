/**
 * What an INSERT or a read-back of jobs returns: `keys`, the id, kind and key only (enough to
 * answer a producer); `rows`, every column as well (the store builds its job views from them).
 */
export type Returning = 'keys' | 'rows';

/**
 * A returned row: `id`, `kind`, and the idempotency key as `ikey` (one word survives a
 * camel-case plugin on the caller's Kysely); with {@link Returning} `rows`, every column too.
 */
export interface ReturnedRow {
  readonly id: number | string | bigint;
  readonly kind: string;
  readonly ikey: string | null;
}

/** The select list of {@link Returning}. */
export function returningList(returning: Returning): string {
  return returning === 'rows' ? '*, idempotency_key AS ikey' : 'id, kind, idempotency_key AS ikey';
}
