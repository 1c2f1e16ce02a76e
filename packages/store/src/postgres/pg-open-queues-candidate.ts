// The candidate of the queues neither capped nor limited, in a PostgreSQL claim that locks limited
// queues (see pg-claim-sql.ts).
//
// It walks the due rows of its kinds in claim order and keeps those of open queues. Rows that a
// limited queue's limits hold back (a busy key's backlog, a queue at its concurrency), or rows of
// a paused queue, come first as often as not, and the walk read each of them in every claim:
// 20,000 rows of one busy key made each claim of another queue read 20,000 rows. A probe now
// reads the first WINDOW rows in claim order (no lock). When at least half of them are of open
// queues (or there are fewer), the candidate walks as before; otherwise it finds its rows per
// queue: one probe per distinct queue of the pending rows (`nudge_jobs_queue_claimable`), and the
// first rows of each open one, merged in claim order. Held-back rows then cost a claim the window.

const CLAIM_ORDER = 'priority, run_at, id';

/** Rows the probe of a candidate reads before it chooses how to read. */
export const WINDOW = 32;

/** What {@link pgOpenQueuesCandidateCtes} builds on: SQL fragments of the claim statement. */
export interface OpenQueuesCandidate {
  /** The candidate's CTE name; the helpers add `<name>_probe`, `<name>_walk` and `<name>_by_queue`. */
  readonly name: string;
  /** The group's kinds (a bound text array). */
  readonly kinds: string;
  /** The group's queue filter on alias `j` (or empty). */
  readonly groupQueues: string;
  /** The claim's clock. */
  readonly clock: string;
  /** Whether this candidate runs at all (a boolean SQL expression). */
  readonly gate: string;
  /** Whether the queue `queue` (SQL) is open here: neither capped nor limited nor paused (SQL). */
  readonly open: (queue: string) => string;
  /** The group's limit (a bound int parameter). */
  readonly limit: string;
}

/**
 * The CTEs of the candidate `c.name`: at most `c.limit` due rows of open queues, each locked.
 * `walk(name, filter)` builds the CTE `name` of the walk in claim order (the claim's plain
 * candidate) with the extra SQL `filter`.
 */
export function pgOpenQueuesCandidateCtes(
  c: OpenQueuesCandidate,
  walk: (name: string, filter: string) => string,
): string[] {
  const due = `j.status = 'PENDING' AND j.run_at <= ${c.clock} AND j.kind = ANY(${c.kinds}::text[]) ${c.groupQueues}`;
  const columns = 'j.id, j.queue, j.priority, j.run_at, j.concurrency_key';
  const probe = `${c.name}_probe`;
  return [
    `${probe} AS (
  SELECT count(*) < ${WINDOW} OR 2 * count(*) FILTER (WHERE ${c.open('w.queue')}) >= count(*) AS walk
    FROM (SELECT j.queue FROM nudge_jobs AS j WHERE ${due} AND ${c.gate}
           ORDER BY ${CLAIM_ORDER} LIMIT ${WINDOW}) AS w
)`,
    walk(
      `${c.name}_walk`,
      `${c.groupQueues} AND ${c.open('j.queue')} AND ${c.gate} AND (SELECT walk FROM ${probe})`,
    ),
    `${c.name}_by_queue AS (
  SELECT per_queue.* FROM (
    WITH RECURSIVE walk(name) AS (
      SELECT (SELECT min(queue) FROM nudge_jobs WHERE status = 'PENDING')
      UNION ALL
      SELECT (SELECT min(queue) FROM nudge_jobs WHERE status = 'PENDING' AND queue > walk.name)
        FROM walk WHERE walk.name IS NOT NULL
    )
    SELECT name FROM walk
     WHERE name IS NOT NULL AND ${c.open('walk.name')} AND ${c.gate} AND NOT (SELECT walk FROM ${probe})
  ) AS q CROSS JOIN LATERAL (
    SELECT ${columns} FROM nudge_jobs AS j
     WHERE ${due} AND j.queue = q.name
     ORDER BY ${CLAIM_ORDER} LIMIT ${c.limit}::int
     FOR UPDATE SKIP LOCKED
  ) AS per_queue
   ORDER BY ${CLAIM_ORDER}
   LIMIT ${c.limit}::int
)`,
    `${c.name} AS (SELECT * FROM ${c.name}_walk UNION ALL SELECT * FROM ${c.name}_by_queue)`,
  ];
}
