/**
 * What an INSERT or a read-back of jobs returns: `keys`, the id, kind and key only (enough to
 * answer a producer); `rows`, every column as well (the store builds its job views from them).
 */
export type Returning = 'keys' | 'rows';

/**
 * A returned row: `id`, `kind`, the idempotency key as `ikey` and `depends_on` as `deps` (one word
 * survives a camel-case plugin on the caller's Kysely); with {@link Returning} `rows`, every
 * column too.
 */
export interface ReturnedRow {
  readonly id: number | string | bigint;
  readonly kind: string;
  readonly ikey: string | null;
  /** The job's dependency ids: a JSON array (PostgreSQL's driver parses it; SQLite gives text), or `null`. */
  readonly deps?: unknown;
}

/** The select list of {@link Returning}. */
export function returningList(returning: Returning): string {
  return returning === 'rows'
    ? '*, idempotency_key AS ikey, depends_on AS deps'
    : 'id, kind, idempotency_key AS ikey, depends_on AS deps';
}

/** The dependency ids of a returned row ({@link ReturnedRow.deps}), whatever form the driver gave them. */
export function returnedDependencies(row: ReturnedRow): number[] {
  const deps: unknown = typeof row.deps === 'string' ? JSON.parse(row.deps) : row.deps;
  return Array.isArray(deps) ? deps.map(Number) : [];
}
