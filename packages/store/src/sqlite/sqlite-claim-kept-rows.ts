// The cuts of a SQLite claim (see sqlite-claim.ts): which of the rows its candidate selects read
// are kept, in claim order. Each cut is a window function over the rows, so each is added only
// when it can drop a row.

const CLAIM_ORDER = 'priority, run_at, id';

/** The columns every candidate select answers, in order. */
const COLUMNS = 'g, id, queue, priority, run_at, concurrency_key';

/** What the cuts of one claim need; the JSON texts are bound by the caller. */
export interface SqliteClaimKeptRows {
  /** The candidate selects of queues without a key limit, each answering {@link COLUMNS}. */
  readonly offered: readonly string[];
  /** The candidate selects of queues with a key limit (the key cut reads only their rows). */
  readonly keyedOffered: readonly string[];
  /**
   * Bound JSON object, queue → key limit, for the queues with one; `undefined` when none has (no
   * key cut).
   */
  readonly keyCaps?: string;
  /**
   * Bound JSON object, queue → the most rows of it this claim may keep over all groups;
   * `undefined` when no candidate can read more than that (no queue cut).
   */
  readonly queueCaps?: string;
  /** Bound JSON array of each group's limit; `undefined` when each group has one candidate (no group cut). */
  readonly groupLimits?: string;
}

/**
 * The statement's prefix (a `WITH` clause, or nothing) and the subquery of the ids it keeps: at
 * most the key's room per concurrency key (the key limit less the key's running jobs, counted
 * only for the rows with a key of queues with a key limit), then at most the queue's cap per queue, then at most the group's
 * limit per group, each in claim order.
 */
export function sqliteClaimKeptRows(cuts: SqliteClaimKeptRows): { prefix: string; kept: string } {
  let prefix = '';
  const selects = [...cuts.offered];
  if (cuts.keyCaps !== undefined && cuts.keyedOffered.length > 0) {
    // Read once: rows without a key pass, and only the rows with one are sorted by key.
    prefix = `WITH keyed AS MATERIALIZED (${cuts.keyedOffered.join(' UNION ALL ')}) `;
    selects.push(`SELECT ${COLUMNS} FROM keyed WHERE concurrency_key IS NULL`);
    selects.push(`SELECT ${COLUMNS} FROM (
        SELECT *, row_number() OVER (PARTITION BY queue, concurrency_key ORDER BY ${CLAIM_ORDER}) AS in_key,
               json_extract(${cuts.keyCaps}, '$."' || queue || '"') - (
                 SELECT count(*) FROM nudge_jobs AS k WHERE k.status = 'RUNNING'
                    AND k.queue = o.queue AND k.concurrency_key = o.concurrency_key) AS key_room
          FROM keyed AS o WHERE concurrency_key IS NOT NULL
      ) WHERE key_room IS NULL OR in_key <= key_room`);
  } else selects.push(...cuts.keyedOffered);
  let rows = `(${selects.join(' UNION ALL ')})`;
  if (cuts.queueCaps !== undefined) {
    rows = `(SELECT ${COLUMNS} FROM (
      SELECT *, row_number() OVER (PARTITION BY queue ORDER BY ${CLAIM_ORDER}) AS in_queue,
             json_extract(${cuts.queueCaps}, '$."' || queue || '"') AS cap
        FROM ${rows}
    ) WHERE cap IS NULL OR in_queue <= cap)`;
  }
  if (cuts.groupLimits === undefined) return { prefix, kept: `SELECT id FROM ${rows}` };
  return {
    prefix,
    kept: `SELECT id FROM (
      SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY ${CLAIM_ORDER}) AS in_group FROM ${rows}
    ) WHERE in_group <= json_extract(${cuts.groupLimits}, '$[' || g || ']')`,
  };
}
