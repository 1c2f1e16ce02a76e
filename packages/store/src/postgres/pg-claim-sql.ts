import type { ClaimGroup, ClaimInput } from '../store.js';
import { pgClaimedSteps } from './pg-claimed-steps.js';
import { pgMs, pgNow } from './pg-row.js';
import { limitedWant, SHARE_SLOTS, type LimitedLock } from './pg-limited-hint.js';
import { pgKeyedCandidateCtes } from './pg-keyed-candidate.js';
import { pgOpenQueuesCandidateCtes } from './pg-open-queues-candidate.js';
import {
  limitedQueue,
  pgLimitsCte,
  pgOthersPendingCte,
  pgLimitedQueueUpdate,
  runningWithKey,
} from './pg-queue-limits-sql.js';

// Invariant: each candidate CTE locks at most its limit of due PENDING rows of its group's kinds
// and queues (never of a paused queue), skipping rows other claimers hold; the UPDATE flips
// exactly the rows kept, and each claim bumps version and attempts. With capped or limited
// queues, each group has a candidate CTE per such queue besides its own; the rows kept are, in
// claim order, at most the key's room per concurrency key, then at most the queue's room per
// capped or limited queue over all groups (the least of this instance's cap and the cluster
// limits' room), then at most the limit per group. (Rows locked but not kept are unlocked when
// the statement ends.) A limited queue is claimed only through its own candidate CTE, and only
// when the statement locked its nudge_queues row first (`limited`, the `limits` CTE): claims of
// one limited queue run one at a time across the cluster, or side by side while each takes at most
// the queue's share size and its room leaves that much for each of the others (migrations 0014 and
// 0018), and each counts the running jobs,
// the keys' running jobs and the rate window after the lock (read by functions that take a fresh
// snapshot after the lock; the statement's own is older). Such a claim dates its starts by the
// lock's time, so a start is never dated before the previous claim committed. The LIMIT must sit
// in a CTE: a bare `id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)` may be re-evaluated and lock
// more than n rows. Only PENDING rows are read: the partial claim indexes hold nothing else, and
// not-due rows wait as SCHEDULED. The kept ids are updated through `id = ANY(ARRAY(…))`, a
// primary-key lookup, rather than a join whose plan depends on statistics. A group's candidates
// run only when a due row of its kinds exists (the `due` CTE, one probe of
// `nudge_jobs_kind_claimable` in its order, a scalar subquery: an EXISTS loses the ORDER BY, and
// the planner may then read the table from its start instead): without one, each would walk every
// due row of other kinds to find none, as a group of idle kinds did in each claim. Paused and
// limited queues are read by each candidate CTE (an init plan), so a pause or a new limit is
// obeyed from the next claim on. With limited queues locked, the candidate of the other queues
// and that of a limited queue with a key limit read a window of rows in claim order, and look per
// queue or per key only when the window is full of rows they cannot take (pg-open-queues-candidate.ts,
// pg-keyed-candidate.ts): held-back rows cost a claim at most the window. The batch comes back as
// one JSON text: the client parses it natively, not row by row.

/** A claim statement's text and its bound values, built together so that they always agree. */
export interface BuiltPgClaim {
  readonly text: string;
  readonly values: unknown[];
}

const CLAIM_ORDER = 'priority, run_at, id';
// With limited queues, the time the lock was taken: `now()` is the start of the statement, before
// any wait for the lock, and would date a start earlier than it happened by as long as that wait.
const PLAIN_NOW = pgNow('$1');
const LOCKED_NOW = 'coalesce($1::timestamptz, (SELECT max(at) FROM limits), now())';

/** SQL: the paused and the limited queues, read by the statement (an init plan). */
const CLOSED_QUEUES = `ARRAY(SELECT name FROM nudge_queues WHERE paused OR ${limitedQueue()})`;

/**
 * SQL: the candidate row `j` is in none of the queues `names` (a text array). Wrapped in
 * `coalesce` so that the planner estimates half the rows pass rather than none: an array it
 * cannot see (an init plan, or a generic plan's parameter) gets assumed to hold ten names, each
 * as common as the column's values, so with a single queue (or a few) `queue <> ALL(…)` seems to
 * pass no row, and the plan sorts every due row instead of reading the claim index in order.
 */
const outside = (names: string, queue = 'j.queue'): string => `coalesce(${queue} <> ALL(${names}), true)`;

/**
 * The `cuts` CTE: `needed` is false when no cut can drop a row of `offered`: no group read more
 * than its limit (`groupLimits`, an int array by group), no queue more than its cap (`capNames`,
 * `capValues`) or its cluster-wide room (the `limits` CTE, when `withLimits`), and no row has a
 * key in a queue with a key limit. One pass over the rows read, grouped, instead of three sorts.
 */
function pgCutsNeededCte(
  groupLimits: string,
  capNames: string,
  capValues: string,
  withLimits: boolean,
): string {
  const limits = withLimits ? 'LEFT JOIN limits AS l ON l.name = c.queue' : '';
  const room = withLimits ? 'l.room' : 'NULL::int';
  const keyLimit = withLimits ? 'l.key_concurrency' : 'NULL::int';
  return `cuts AS (
  SELECT EXISTS (
           SELECT 1 FROM (SELECT g, count(*) AS n FROM offered GROUP BY g) AS c
            WHERE c.n > (${groupLimits}::int[])[c.g + 1])
      OR EXISTS (
           SELECT 1 FROM (SELECT queue, count(*) AS n, count(concurrency_key) AS keyed FROM offered GROUP BY queue) AS c
             ${limits}
             LEFT JOIN unnest(${capNames}::text[], ${capValues}::int[]) AS cap(name, cap) ON cap.name = c.queue
            WHERE c.n > least(cap.cap, ${room}) OR (c.keyed > 0 AND ${keyLimit} IS NOT NULL)) AS needed
)`;
}

/**
 * Builds the claim statement for groups whose limits are above 0. Values: `$1` now (NULL for the
 * database clock), `$2` worker id, `$3` lease in ms, `$4` every kind of the groups, `$5` the
 * queues served (NULL for all), then the limited queues the statement locks (if any), each group's
 * kinds, queues and limits, and the capped and limited queues' names and limits, in order.
 *
 * The statement answers one row: `jobs` (the claimed rows as JSON text), `ready` (the limited
 * queues with due jobs of these kinds, to lock and claim next time), `held` (the locked queues
 * whose limits held back rows: their room was used up, or a row read for them was not kept:
 * counted, the kept rows being some of the rows read), `rates` (each rate-limited queue claimed:
 * `[name, limit, intervalMs, startsInWindow, oldestStartMs]`, before this claim), `frees` (each
 * locked queue: `[name, free, shared, room, shareSize]`, see migrations 0014 and 0018) and `now_ms` (the database
 * clock, epoch ms).
 */
export function buildPgClaim(
  input: ClaimInput,
  groups: readonly ClaimGroup[],
  locks: readonly LimitedLock[] = [],
  served: readonly string[] | null = null,
): BuiltPgClaim {
  const limited = locks.map((lock) => lock.name);
  const allKinds = [...new Set(groups.flatMap((group) => group.kinds))];
  const values: unknown[] = [input.now ?? null, input.workerId, input.leaseMs, allKinds, served];
  const bind = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const capEntries = Object.entries(input.queueLimits ?? {});
  const instanceCaps = new Map(capEntries);
  // Queues with a candidate CTE of their own: this instance's open caps, then the locked limited.
  const own = [...new Set([...capEntries.filter(([, cap]) => cap > 0).map(([queue]) => queue), ...limited])];
  // Capped queues are claimed only through their own candidates. Limited ones are kept out of the
  // others by the statement itself (it reads which queues are limited), so that a queue whose
  // limits were lifted since the caller locked it is claimed as any other.
  const apart = capEntries.map(([queue]) => queue);
  const ctes: string[] =
    limited.length > 0
      ? [
          pgLimitsCte(
            bind(limited),
            bind(limited.map((queue) => limitedWant(input, groups, queue))),
            bind(locks.map((lock) => lock.share)),
            bind(SHARE_SLOTS),
          ),
          pgOthersPendingCte(bind(apart)),
        ]
      : [];
  const clock = limited.length > 0 ? LOCKED_NOW : PLAIN_NOW;
  // Whether group `g` has a due row of its kinds: probed once per group, read by each of its candidates.
  const due = (g: number, kinds: string): void => {
    ctes.push(`due${g} AS (
  SELECT (SELECT true FROM nudge_jobs AS d
           WHERE d.status = 'PENDING' AND d.kind = ANY(${kinds}::text[]) AND d.run_at <= ${clock}
           ORDER BY d.kind, d.run_at LIMIT 1) AS found
)`);
  };
  const candidateCte = (name: string, g: number, kinds: string, filter: string, limit: string): string =>
    `${name} AS (
  SELECT j.id, j.queue, j.priority, j.run_at, j.concurrency_key FROM nudge_jobs AS j
   WHERE j.status = 'PENDING' AND j.run_at <= ${clock} AND j.kind = ANY(${kinds}::text[])
     ${filter}
     AND (SELECT found FROM due${g})
   ORDER BY ${CLAIM_ORDER}
   LIMIT ${limit}
   FOR UPDATE SKIP LOCKED
)`;
  const candidate = (name: string, g: number, kinds: string, filter: string, limit: string): void => {
    ctes.push(candidateCte(name, g, kinds, filter, limit));
  };
  const offered: string[] = [];
  groups.forEach((group, g) => {
    const kinds = bind(group.kinds);
    const limit = bind(group.limit);
    const groupQueues = group.queues === undefined ? '' : `AND j.queue = ANY(${bind(group.queues)}::text[])`;
    due(g, kinds);
    const apartParam = apart.length === 0 ? undefined : bind(apart);
    const notApart = apartParam === undefined ? '' : `AND ${outside(apartParam + '::text[]')}`;
    if (limited.length === 0)
      candidate(`g${g}`, g, kinds, `${groupQueues} ${notApart} AND ${outside(CLOSED_QUEUES)}`, limit);
    else
      ctes.push(
        ...pgOpenQueuesCandidateCtes(
          {
            name: `g${g}`,
            kinds,
            groupQueues,
            clock,
            // It runs only when one of the other queues has a pending row.
            gate: `(SELECT found FROM others) AND (SELECT found FROM due${g})`,
            open: (queue) =>
              `${outside(CLOSED_QUEUES, queue)}${apartParam === undefined ? '' : ` AND ${outside(apartParam + '::text[]', queue)}`}`,
            limit,
          },
          (name, filter) => candidateCte(name, g, kinds, filter, limit),
        ),
      );
    offered.push(`SELECT ${g} AS g, * FROM g${g}`);
    own.forEach((queue, q) => {
      const isLimited = limited.includes(queue);
      const name = bind(queue);
      const cap = instanceCaps.get(queue);
      const most = cap === undefined ? group.limit : Math.min(cap, group.limit);
      const keyLimit = `(SELECT key_concurrency FROM limits WHERE name = ${name}::text)`;
      // A limited queue with a key limit is read by its keyed candidate (pg-keyed-candidate.ts).
      const filter = isLimited
        ? `AND j.queue = ${name}::text ${groupQueues} AND ${keyLimit} IS NULL`
        : `AND j.queue = ${name}::text AND ${outside(CLOSED_QUEUES)}`;
      // A limited queue no longer limited (or paused) has no row in `limits`: room 0 claims nothing.
      // With a key limit, rows past the room are read too: some of them may share a key and be dropped.
      const mostParam = bind(most);
      const rows = isLimited
        ? `(SELECT CASE WHEN coalesce(l.room, 0) = 0 THEN 0 WHEN l.key_concurrency IS NULL THEN least(l.room, ${mostParam}::int)
                      ELSE ${mostParam}::int END FROM (SELECT 0) AS one LEFT JOIN limits AS l ON l.name = ${name}::text)`
        : mostParam;
      candidate(`g${g}q${q}`, g, kinds, filter, rows);
      offered.push(`SELECT ${g} AS g, * FROM g${g}q${q}`);
      if (!isLimited) return;
      ctes.push(
        ...pgKeyedCandidateCtes(
          {
            name: `g${g}q${q}k`,
            queue: name,
            kinds,
            groupQueues,
            clock,
            due: `(SELECT found FROM due${g})`,
            rows,
            keyLimit,
          },
          (cteName, filter, most) => candidateCte(cteName, g, kinds, filter, most),
        ),
      );
      offered.push(`SELECT ${g} AS g, * FROM g${g}q${q}k`);
    });
  });
  let kept: string;
  if (own.length === 0) {
    kept = groups.map((_, g) => `SELECT id FROM g${g}`).join(' UNION ALL ');
  } else {
    const groupLimits = bind(groups.map((group) => group.limit));
    const capNames = bind(capEntries.map(([queue]) => queue));
    const capValues = bind(capEntries.map(([, cap]) => cap));
    // The key cut sorts only the rows that have a key in a queue with a key limit; the others pass.
    const keyed =
      limited.length > 0
        ? `SELECT o.g, o.id, o.queue, o.priority, o.run_at, l.room
    FROM offered AS o LEFT JOIN limits AS l ON l.name = o.queue
   WHERE o.concurrency_key IS NULL OR l.key_concurrency IS NULL
  UNION ALL
  SELECT k.g, k.id, k.queue, k.priority, k.run_at, k.room FROM (
    SELECT o.*, l.room, l.key_concurrency - ${runningWithKey('o')} AS key_room,
           row_number() OVER (PARTITION BY o.queue, o.concurrency_key ORDER BY ${CLAIM_ORDER}) AS in_key
      FROM offered AS o JOIN limits AS l ON l.name = o.queue
     WHERE o.concurrency_key IS NOT NULL AND l.key_concurrency IS NOT NULL
  ) AS k
   WHERE k.in_key <= k.key_room`
        : 'SELECT o.g, o.id, o.queue, o.priority, o.run_at, NULL::int AS room FROM offered AS o';
    ctes.push(`offered AS (${offered.join(' UNION ALL ')}),
keyed AS (
  ${keyed}
),
within_caps AS (
  SELECT k.*, row_number() OVER (PARTITION BY k.queue ORDER BY ${CLAIM_ORDER}) AS in_queue,
         least(c.cap, k.room) AS cap
    FROM keyed AS k
    LEFT JOIN unnest(${capNames}::text[], ${capValues}::int[]) AS c(name, cap) ON c.name = k.queue
),
kept AS (
  SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY ${CLAIM_ORDER}) AS in_group
    FROM within_caps WHERE cap IS NULL OR in_queue <= cap
)`);
    // The cuts sort the rows read three times; most claims read no row a cut would drop (every
    // count within its limit, no key to cut by), and then take the rows read as they are.
    ctes.push(pgCutsNeededCte(groupLimits, capNames, capValues, limited.length > 0));
    kept = `SELECT id FROM offered WHERE NOT (SELECT needed FROM cuts)
      UNION ALL SELECT id FROM kept WHERE (SELECT needed FROM cuts) AND in_group <= (${groupLimits}::int[])[g + 1]`;
  }
  ctes.push(`claimed AS (
  UPDATE nudge_jobs AS j
     SET status = 'RUNNING',
         version = j.version + 1,
         attempts = j.attempts + 1,
         claimed_by = $2,
         started_at = ${clock},
         lease_expires_at = ${clock} + ${pgMs('$3')}
   WHERE j.id = ANY(ARRAY(${kept}))
  RETURNING j.id, j.version, j.kind, j.queue, j.attempts, j.payload,
            extract(epoch FROM ${clock} - j.run_at) * 1000 AS wait_ms, j.depends_on,
            CASE WHEN j.has_steps THEN ${pgClaimedSteps('j', clock)} END AS steps, j.trace_context
)`);
  if (limited.length > 0) ctes.push(pgLimitedQueueUpdate());
  // `ready` probes each limited queue with a scalar subquery in the order of the queue's claim
  // index (nudge_jobs_queue_claimable), LIMIT 1: an EXISTS became a semi-join that grouped every
  // due row of the kinds by queue (3 ms over 10,000 due rows in each claim, with no limited queue
  // at all), and without the order the probe of a queue with no such row read them all through
  // the kind index.
  const text = `
WITH ${ctes.join(',\n')}
SELECT (SELECT coalesce(json_agg(json_build_array(id, version, kind, queue, attempts, payload::text, wait_ms, depends_on, steps, trace_context)), '[]')
          FROM claimed)::text AS jobs,
       (SELECT coalesce(array_agg(q.name), '{}') FROM nudge_queues AS q
         WHERE NOT q.paused AND ${limitedQueue('q')}
           AND ($5::text[] IS NULL OR q.name = ANY($5::text[]))
           AND (SELECT true FROM nudge_jobs AS p WHERE p.status = 'PENDING' AND p.queue = q.name
                   AND p.run_at <= ${clock} AND p.kind = ANY($4::text[])
                 ORDER BY p.priority, p.run_at, p.id LIMIT 1)) AS ready,
       ${
         limited.length > 0
           ? `(SELECT coalesce(array_agg(l.name), '{}') FROM limits AS l
                WHERE l.room <= (SELECT count(*) FROM claimed AS c WHERE c.queue = l.name)
                   OR (SELECT count(*) FROM offered AS o WHERE o.queue = l.name)
                      > (SELECT count(*) FROM claimed AS c WHERE c.queue = l.name))`
           : `'{}'::text[]`
       } AS held,
       ${
         limited.length > 0
           ? `(SELECT json_agg(json_build_array(name, rate_limit, rate_interval_ms, started, oldest_start))
                 FROM limits WHERE rate_limit IS NOT NULL)::text`
           : 'NULL::text'
       } AS rates,
       ${
         limited.length > 0
           ? '(SELECT json_agg(json_build_array(name, free, shared, room, share_size)) FROM limits)::text'
           : 'NULL::text'
       } AS frees,
       (extract(epoch FROM ${clock}) * 1000)::float8 AS now_ms`;
  return { text, values };
}
