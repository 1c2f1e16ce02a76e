/**
 * What an INSERT or a read-back of jobs returns: `keys`, the id, kind and key only (enough to
 * answer a producer); `rows`, every column as well (the store builds its job views from them).
 */
export type Returning = 'keys' | 'rows';

/**
 * A returned row: `id`, `kind`, the idempotency key as `ikey` and `depends_on` as `deps` (one word
 * survives a camel-case plugin on the caller's Kysely); with {@link Returning} `rows`, every
 * column instead of `deps` (only the store asks for rows, on its own driver, so `depends_on`
 * keeps its name; a second copy of 1,000 lists of 1,000 ids was 8 MB more to send and parse).
 */
export interface ReturnedRow {
  readonly id: number | string | bigint;
  readonly kind: string;
  readonly ikey: string | null;
  /** The job's dependency ids: a JSON array (PostgreSQL's driver parses it; SQLite gives text), or `null`. */
  readonly deps?: unknown;
  /** With {@link Returning} `rows`: the same as `deps`. */
  readonly depends_on?: unknown;
}

/** The select list of {@link Returning}. */
export function returningList(returning: Returning): string {
  return returning === 'rows'
    ? '*, idempotency_key AS ikey'
    : 'id, kind, idempotency_key AS ikey, depends_on AS deps';
}

/** The dependency ids of a returned row ({@link ReturnedRow.deps}), whatever form the driver gave them. */
export function returnedDependencies(row: ReturnedRow): number[] {
  const given = row.deps === undefined ? row.depends_on : row.deps;
  const deps: unknown = typeof given === 'string' ? JSON.parse(given) : given;
  return Array.isArray(deps) ? deps.map(Number) : [];
}
