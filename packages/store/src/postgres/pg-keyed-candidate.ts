// The candidate of a limited queue with a key limit in a PostgreSQL claim (see pg-claim-sql.ts).
//
// Rows whose key is at its limit cannot be taken, and a walk of the queue in claim order read
// each of them: with 20,000 due rows of one busy key, every claim of every queue read them all
// (and asked each one's key for room), 185 ms a claim. A probe now reads the queue's first WINDOW
// rows in claim order (no lock). When at least half of them have no key or a key below its limit
// (or there are fewer), the candidate walks as before, asking a key for room only when it is not
// at its limit; otherwise it finds its rows by key (index nudge_jobs_key_claimable and
// nudge_jobs_keyless_claimable, migration 0018): the first rows without a key, and the first rows
// of each key below its limit, one probe per distinct key of the queue's due rows. The keys at
// their limit are read once per claim from the running rows (the statement's snapshot: a key
// freed since waits for the next claim), and the rows kept are still checked with a fresh count
// under the key's try-lock (`keyHasRoom`), in claim order. Held-back rows then cost a claim the
// window, however many there are.

import { keyHasRoom } from './pg-queue-limits-sql.js';
import { WINDOW } from './pg-open-queues-candidate.js';

const CLAIM_ORDER = 'priority, run_at, id';

/** What {@link pgKeyedCandidateCtes} builds on: SQL fragments of the claim statement. */
export interface KeyedCandidate {
  /** The candidate's CTE name; the helpers add `<name>_full`, `<name>_probe`, `<name>_walk`, `<name>_by_key`. */
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
 * may take, at most `c.rows`, each locked. `walk(name, filter, limit)` builds the CTE `name` of
 * the walk in claim order (the claim's plain candidate) with the extra SQL `filter`.
 */
export function pgKeyedCandidateCtes(
  c: KeyedCandidate,
  walk: (name: string, filter: string, limit: string) => string,
): string[] {
  const due = `j.status = 'PENDING' AND j.queue = ${c.queue}::text AND j.run_at <= ${c.clock}
       AND j.kind = ANY(${c.kinds}::text[]) ${c.groupQueues}`;
  const columns = 'j.id, j.queue, j.priority, j.run_at, j.concurrency_key';
  const full = `${c.name}_full`;
  const probe = `${c.name}_probe`;
  const atLimit = `(SELECT at_limit FROM ${full})::text[]`;
  const limit = `(SELECT n FROM (SELECT ${c.rows} AS n) AS r)`;
  return [
    `${full} AS (
  SELECT coalesce(array_agg(f.concurrency_key), '{}') AS at_limit FROM (
    SELECT r.concurrency_key FROM nudge_jobs AS r
     WHERE r.status = 'RUNNING' AND r.queue = ${c.queue}::text AND r.concurrency_key IS NOT NULL
     GROUP BY r.concurrency_key HAVING count(*) >= ${c.keyLimit}) AS f
)`,
    `${probe} AS (
  SELECT count(*) < ${WINDOW}
         OR 2 * count(*) FILTER (WHERE w.concurrency_key IS NULL OR w.concurrency_key <> ALL(${atLimit})) >= count(*) AS walk
    FROM (SELECT j.concurrency_key FROM nudge_jobs AS j
           WHERE ${due} AND ${c.keyLimit} IS NOT NULL AND ${c.due}
           ORDER BY ${CLAIM_ORDER} LIMIT ${WINDOW}) AS w
)`,
    walk(
      `${c.name}_walk`,
      `AND j.queue = ${c.queue}::text ${c.groupQueues} AND ${c.keyLimit} IS NOT NULL AND (SELECT walk FROM ${probe})
       AND (j.concurrency_key IS NULL
            OR (j.concurrency_key <> ALL(${atLimit}) AND ${keyHasRoom('j', c.keyLimit)}))`,
      limit,
    ),
    `${c.name}_by_key AS (
  SELECT ${columns} FROM nudge_jobs AS j
   WHERE j.id = ANY(ARRAY(
     SELECT k.id FROM (
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
         WHERE walk.key IS NOT NULL AND walk.key <> ALL(${atLimit}))
       ORDER BY ${CLAIM_ORDER}
       OFFSET 0
     ) AS k
      -- Asked in claim order, until enough rows pass (OFFSET 0: not pushed below the sort).
      WHERE k.concurrency_key IS NULL OR ${keyHasRoom('k', c.keyLimit)}
      LIMIT ${limit}))
     AND j.status = 'PENDING' AND ${c.keyLimit} IS NOT NULL AND ${c.due} AND NOT (SELECT walk FROM ${probe})
   FOR UPDATE SKIP LOCKED
)`,
    `${c.name} AS (SELECT * FROM ${c.name}_walk UNION ALL SELECT * FROM ${c.name}_by_key)`,
  ];
}
