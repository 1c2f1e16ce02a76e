// The candidate of a limited queue with a key limit in a PostgreSQL claim (see pg-claim-sql.ts).
//
// Rows whose key is at its limit cannot be taken, and a walk of the queue in claim order reads
// each of them: with 20,000 due rows of one busy key, every claim of every queue read them all
// (and asked each one's key for room), 185 ms a claim. The rows are now taken from a window: the
// queue's first rows in claim order, read (and locked) only until `rows` of them have a key with
// room, or no key, and never more than the window's size. Only when the window is full of rows it
// cannot take are the rest found by key instead (index nudge_jobs_queue_key_claimable, migration
// 0018): the first rows without a key, and the first rows of each key with room, one probe per
// distinct key of the queue's due rows. So a busy key's held-back rows cost a claim at most the
// window, however many there are; a queue of many keys, most with room, is read in claim order
// as before. The keys at their limit are read once per claim from the running rows (the
// statement's snapshot; a key freed since is skipped until the next claim), and the rows kept are
// still checked with a fresh count under the key's try-lock (`keyHasRoom`), in claim order.

import { keyHasRoom } from './pg-queue-limits-sql.js';

const CLAIM_ORDER = 'priority, run_at, id';

/** How many rows past `rows` the window may read before the claim looks by key instead. */
const WINDOW_SLACK = 32;

/** What {@link pgKeyedCandidateCtes} builds on: SQL fragments of the claim statement. */
export interface KeyedCandidate {
  /** The candidate's CTE name; the helpers add `<name>_full`, `<name>_window` and `<name>_taken`. */
  readonly name: string;
  /** The queue (a bound text parameter). */
  readonly queue: string;
  /** The group's kinds (a bound text array). */
  readonly kinds: string;
  /** The group's queue filter on alias `j` (or empty). */
  readonly groupQueues: string;
  /** The claim's clock. */
  readonly clock: string;
  /** The group's probe of a due row of its kinds (a boolean SQL expression). */
  readonly due: string;
  /** The most rows the candidate may offer (an int SQL expression). */
  readonly rows: string;
  /** The queue's key limit (an int SQL expression, NULL without one: then this candidate offers nothing). */
  readonly keyLimit: string;
}

/**
 * The CTEs of the candidate `c.name`: the queue's due rows of the group's kinds that this claim
 * may take, at most `c.rows`, each locked, in the columns every candidate answers.
 */
export function pgKeyedCandidateCtes(c: KeyedCandidate): string[] {
  const due = `j.status = 'PENDING' AND j.queue = ${c.queue}::text AND j.run_at <= ${c.clock}
       AND j.kind = ANY(${c.kinds}::text[]) ${c.groupQueues}`;
  const columns = 'j.id, j.queue, j.priority, j.run_at, j.concurrency_key';
  const full = `${c.name}_full`;
  const window = `${c.name}_window`;
  const taken = `${c.name}_taken`;
  const limit = `(SELECT n FROM (SELECT ${c.rows} AS n) AS r)`;
  const windowSize = `(${limit} + ${WINDOW_SLACK})`;
  const free = (alias: string): string =>
    `(${alias}.concurrency_key IS NULL OR ${alias}.concurrency_key <> ALL((SELECT at_limit FROM ${full})::text[]))`;
  // Only when the window is full and holds fewer than `rows` it may take.
  const byKey = `CASE WHEN (SELECT count(*) FROM ${taken}) < ${limit}
                     THEN (SELECT count(*) FROM ${window}) = ${windowSize} ELSE false END`;
  return [
    `${full} AS (
  SELECT coalesce(array_agg(f.concurrency_key), '{}') AS at_limit FROM (
    SELECT r.concurrency_key FROM nudge_jobs AS r
     WHERE r.status = 'RUNNING' AND r.queue = ${c.queue}::text AND r.concurrency_key IS NOT NULL
     GROUP BY r.concurrency_key HAVING count(*) >= ${c.keyLimit}) AS f
)`,
    `${window} AS (
  SELECT ${columns} FROM nudge_jobs AS j
   WHERE ${due} AND ${c.keyLimit} IS NOT NULL AND ${c.due}
   ORDER BY ${CLAIM_ORDER}
   LIMIT ${windowSize}
   FOR UPDATE SKIP LOCKED
)`,
    `${taken} AS (
  SELECT * FROM ${window} AS w WHERE ${free('w')} LIMIT ${limit}
)`,
    `${c.name} AS (
  SELECT ${columns} FROM nudge_jobs AS j
   WHERE j.id = ANY(ARRAY(
     SELECT k.id FROM (
       SELECT t.id, t.queue, t.priority, t.run_at, t.concurrency_key FROM ${taken} AS t
       UNION
       SELECT b.id, b.queue, b.priority, b.run_at, b.concurrency_key FROM (
         (SELECT ${columns} FROM nudge_jobs AS j
           WHERE ${due} AND j.concurrency_key IS NULL
           ORDER BY ${CLAIM_ORDER} LIMIT ${limit})
         UNION ALL
         (WITH RECURSIVE walk(key) AS (
            SELECT (SELECT min(j.concurrency_key) FROM nudge_jobs AS j
                     WHERE j.status = 'PENDING' AND j.queue = ${c.queue}::text AND j.concurrency_key IS NOT NULL)
            UNION ALL
            SELECT (SELECT min(j.concurrency_key) FROM nudge_jobs AS j
                     WHERE j.status = 'PENDING' AND j.queue = ${c.queue}::text AND j.concurrency_key > walk.key)
              FROM walk WHERE walk.key IS NOT NULL
          )
          SELECT per_key.* FROM walk CROSS JOIN LATERAL (
            SELECT ${columns} FROM nudge_jobs AS j
             WHERE ${due} AND j.concurrency_key = walk.key
             ORDER BY ${CLAIM_ORDER} LIMIT least(${limit}, ${c.keyLimit})
          ) AS per_key
           WHERE walk.key IS NOT NULL AND walk.key <> ALL((SELECT at_limit FROM ${full})::text[]))
       ) AS b
        WHERE ${byKey}
       ORDER BY ${CLAIM_ORDER}
       OFFSET 0
     ) AS k
      -- Asked in claim order, until enough rows pass (OFFSET 0: not pushed below the sort).
      WHERE k.concurrency_key IS NULL OR ${keyHasRoom('k', c.keyLimit)}
      LIMIT ${limit}))
     AND j.status = 'PENDING'
   FOR UPDATE SKIP LOCKED
)`,
  ];
}
