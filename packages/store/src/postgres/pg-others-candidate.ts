// The candidate of the queues neither capped nor limited, in a PostgreSQL claim that locks limited
// queues (see pg-claim-sql.ts).
//
// It walks every due row of its kinds in claim order and keeps those of open queues. Rows of a
// limited queue that its limits hold back (a busy key's backlog, a queue at its concurrency) or
// of a paused queue come first as often as not, and the walk read each of them in every claim:
// 20,000 rows of one busy key made each claim of another queue read 20,000 rows. The walk now
// reads a window, at most `limit` + WINDOW_SLACK rows (locked as read: rows of the other queues
// are locked by their own candidates in this statement, or skipped), until `limit` of them are of
// open queues. Only when the window is full of rows of closed queues are the rows found per queue
// instead: one probe per distinct queue of the pending rows (`nudge_jobs_queue_claimable`), and
// the first `limit` rows of each open one, merged in claim order.

const CLAIM_ORDER = 'priority, run_at, id';

/** How many rows past `limit` the window may read before the claim looks per queue instead. */
export const WINDOW_SLACK = 32;

/** What {@link pgOthersCandidateCtes} builds on: SQL fragments of the claim statement. */
export interface OthersCandidate {
  /** The candidate's CTE name; the helpers add `<name>_window` and `<name>_taken`. */
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

/** The CTEs of the candidate `c.name`: at most `c.limit` due rows of open queues, each locked. */
export function pgOthersCandidateCtes(c: OthersCandidate): string[] {
  const due = `j.status = 'PENDING' AND j.run_at <= ${c.clock} AND j.kind = ANY(${c.kinds}::text[]) ${c.groupQueues}`;
  const columns = 'j.id, j.queue, j.priority, j.run_at, j.concurrency_key';
  const window = `${c.name}_window`;
  const taken = `${c.name}_taken`;
  const windowSize = `(${c.limit}::int + ${WINDOW_SLACK})`;
  const perQueue = `CASE WHEN (SELECT count(*) FROM ${taken}) < ${c.limit}::int
                         THEN (SELECT count(*) FROM ${window}) = ${windowSize} ELSE false END`;
  return [
    `${window} AS (
  SELECT ${columns} FROM nudge_jobs AS j
   WHERE ${due} AND ${c.gate}
   ORDER BY ${CLAIM_ORDER}
   LIMIT ${windowSize}
   FOR UPDATE SKIP LOCKED
)`,
    `${taken} AS (
  SELECT * FROM ${window} AS w WHERE ${c.open('w.queue')} LIMIT ${c.limit}::int
)`,
    `${c.name} AS (
  SELECT * FROM (
    SELECT * FROM ${taken}
    UNION
    SELECT per_queue.* FROM (
      WITH RECURSIVE walk(name) AS (
        SELECT (SELECT min(queue) FROM nudge_jobs WHERE status = 'PENDING')
        UNION ALL
        SELECT (SELECT min(queue) FROM nudge_jobs WHERE status = 'PENDING' AND queue > walk.name)
          FROM walk WHERE walk.name IS NOT NULL
      )
      SELECT name FROM walk WHERE name IS NOT NULL AND ${perQueue} AND ${c.open('walk.name')}
    ) AS q CROSS JOIN LATERAL (
      SELECT ${columns} FROM nudge_jobs AS j
       WHERE ${due} AND j.queue = q.name
       ORDER BY ${CLAIM_ORDER} LIMIT ${c.limit}::int
       FOR UPDATE SKIP LOCKED
    ) AS per_queue
  ) AS u
   ORDER BY ${CLAIM_ORDER}
   LIMIT ${c.limit}::int
)`,
  ];
}
