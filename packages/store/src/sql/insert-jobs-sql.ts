import { ON_KEY_CONFLICT_DO_NOTHING } from './job-columns.js';

/** The parts of an INSERT of jobs: see {@link insertJobsSql}. */
export interface InsertJobsParts {
  /** The columns filled, in the order `rows` gives their values. */
  readonly columns: readonly string[];
  /** The rows: `VALUES (…), (…)` or a `SELECT …`, in the statement's dialect. */
  readonly rows: string;
  /**
   * The upsert clause.
   * @defaultValue {@link ON_KEY_CONFLICT_DO_NOTHING}: a job whose kind and idempotency key exist
   *   inserts nothing, and its caller reads the existing job back
   */
  readonly onConflict?: string;
  /** The `RETURNING` list, when the statement returns rows. */
  readonly returning?: string;
}

/**
 * The one INSERT of jobs, in both dialects and on every path that writes them (the enqueue plan,
 * the enqueue that claims for itself, follow-ups written with their parent's completion): the
 * statement's shape is written once, and each path gives its columns and its rows. Every path
 * shares the idempotency-key upsert, so a key is honoured however a job arrives.
 * @example
 * insertJobsSql({ columns: ['kind'], rows: 'VALUES (?)', returning: 'id' })
 * // INSERT INTO nudge_jobs (kind) VALUES (?) ON CONFLICT (kind, idempotency_key) … DO NOTHING RETURNING id
 */
export function insertJobsSql({
  columns,
  rows,
  onConflict = ON_KEY_CONFLICT_DO_NOTHING,
  returning,
}: InsertJobsParts): string {
  const tail = returning === undefined ? '' : ` RETURNING ${returning}`;
  return `INSERT INTO nudge_jobs (${columns.join(', ')}) ${rows} ${onConflict}${tail}`;
}
