// How a SQLite claim reads past rows it cannot take (see sqlite-claim.ts).
//
// A claim walks due rows in claim order. Rows that limits hold back (a busy key's backlog, a
// limited queue at its concurrency, a paused queue) come first as often as not, and each claim
// read them all: with 20,000 due rows of one busy key, every claim of every queue read 20,000 rows
// (and counted each one's key). Now, before the claim, a probe reads the first WINDOW due rows a
// candidate would walk, whatever their kind or queue (a probe that skipped rows of other kinds
// would read them all when none is of the claim's kinds). When at least half of them are rows the
// candidate may take (or there are fewer), it walks as before. Otherwise it finds its rows another
// way: the other queues' candidate per queue (the first rows of each open queue with pending rows,
// one probe per distinct queue), a limited queue's with a key limit per key (its rows without a
// key, and the first rows of each key with room, one probe per key; keys at their limit are read
// once from the running rows).
import type Database from 'better-sqlite3';
import { SQLITE_NOW } from './sqlite-time.js';

/** Rows a probe reads before the claim chooses how to read. */
export const WINDOW = 32;

const CLAIM_ORDER = 'priority, run_at, id';

/** The keys of queue `@queue` at the key limit `@keyLimit`, as a JSON array (`keys`). */
const SQLITE_FULL_KEYS = `
SELECT json_group_array(concurrency_key) AS keys FROM (
  SELECT concurrency_key FROM nudge_jobs
   WHERE status = 'RUNNING' AND queue = @queue AND concurrency_key IS NOT NULL
   GROUP BY concurrency_key HAVING count(*) >= @keyLimit
)`;

/**
 * The window of queue `@queue` for a claim of `@kinds` (JSON array): `read`, its first `@window`
 * due rows in claim order, whatever their kind; `kinded`, those of `@kinds`; and `takeable`, those
 * of `@kinds` with no key or a key not in `@full`.
 */
const SQLITE_KEYED_WINDOW = `
SELECT count(*) AS read, coalesce(sum(mine), 0) AS kinded,
       coalesce(sum(mine AND (concurrency_key IS NULL
                              OR concurrency_key NOT IN (SELECT value FROM json_each(@full)))), 0) AS takeable
  FROM (SELECT concurrency_key, kind IN (SELECT value FROM json_each(@kinds)) AS mine
          FROM nudge_jobs INDEXED BY nudge_jobs_queue_claimable
         WHERE status = 'PENDING' AND queue = @queue AND run_at <= ${SQLITE_NOW}
         ORDER BY ${CLAIM_ORDER} LIMIT @window)`;

/**
 * The window of the other queues for a claim of `@kinds` (JSON array) of the queues `@served`
 * (JSON array, NULL for all): `read`, the first `@window` due rows in claim order, whatever their
 * kind or queue, and `takeable`, those of `@kinds` in a served queue neither in `@apart` (JSON
 * array) nor paused.
 */
const SQLITE_OTHERS_WINDOW = `
SELECT count(*) AS read,
       coalesce(sum(kind IN (SELECT value FROM json_each(@kinds))
                    AND (@served IS NULL OR queue IN (SELECT value FROM json_each(@served)))
                    AND queue NOT IN (SELECT value FROM json_each(@apart))
                    AND queue NOT IN (SELECT name FROM nudge_queues WHERE paused = 1)), 0) AS takeable
  FROM (SELECT queue, kind FROM nudge_jobs INDEXED BY nudge_jobs_claimable
         WHERE status = 'PENDING' AND run_at <= ${SQLITE_NOW}
         ORDER BY ${CLAIM_ORDER} LIMIT @window)`;

/** The columns a candidate's inner select answers. */
const COLUMNS = 'id, queue, priority, run_at, concurrency_key';

/**
 * The inner select of the other queues' candidate, per queue: at most `limit` (SQL) due rows of
 * `kinds` (bound JSON array), of the queues `open` (SQL terms on a queue name) lets through, in
 * claim order.
 */
export function sqliteOthersByQueue(kinds: string, open: (queue: string) => string, limit: string): string {
  return `SELECT ${COLUMNS} FROM nudge_jobs WHERE id IN (
    WITH RECURSIVE walk(name) AS (
      SELECT (SELECT min(queue) FROM nudge_jobs WHERE status = 'PENDING')
      UNION ALL
      SELECT (SELECT min(queue) FROM nudge_jobs WHERE status = 'PENDING' AND queue > walk.name)
        FROM walk WHERE walk.name IS NOT NULL
    )
    SELECT j.id FROM walk JOIN nudge_jobs AS j ON j.id IN (
      SELECT k.id FROM nudge_jobs AS k INDEXED BY nudge_jobs_queue_claimable
       WHERE k.status = 'PENDING' AND k.queue = walk.name AND k.run_at <= ${SQLITE_NOW}
         AND k.kind IN (SELECT value FROM json_each(${kinds}))
       ORDER BY ${CLAIM_ORDER} LIMIT ${limit})
     WHERE walk.name IS NOT NULL ${open('walk.name')})
   ORDER BY ${CLAIM_ORDER} LIMIT ${limit}`;
}

/**
 * The inner select of a limited queue's candidate, per key: at most `limit` (SQL) due rows of
 * `kinds` (bound JSON array) in queue `queue` (bound), its rows without a key and the first rows
 * (at most `perKey`, SQL) of each key not in `full` (bound JSON array), in claim order.
 */
export function sqliteKeyedByKey(
  kinds: string,
  queue: string,
  full: string,
  limit: string,
  perKey: string,
): string {
  const due = `k.status = 'PENDING' AND k.queue = ${queue} AND k.run_at <= ${SQLITE_NOW}
       AND k.kind IN (SELECT value FROM json_each(${kinds}))`;
  return `SELECT ${COLUMNS} FROM nudge_jobs WHERE id IN (
    WITH RECURSIVE walk(key) AS (
      SELECT (SELECT min(concurrency_key) FROM nudge_jobs
               WHERE status = 'PENDING' AND queue = ${queue} AND concurrency_key IS NOT NULL)
      UNION ALL
      SELECT (SELECT min(concurrency_key) FROM nudge_jobs
               WHERE status = 'PENDING' AND queue = ${queue} AND concurrency_key > walk.key)
        FROM walk WHERE walk.key IS NOT NULL
    )
    SELECT id FROM (
      SELECT k.id FROM nudge_jobs AS k INDEXED BY nudge_jobs_keyless_claimable
       WHERE ${due} AND k.concurrency_key IS NULL
       ORDER BY ${CLAIM_ORDER} LIMIT ${limit})
    UNION ALL
    SELECT j.id FROM walk JOIN nudge_jobs AS j ON j.id IN (
      SELECT k.id FROM nudge_jobs AS k INDEXED BY nudge_jobs_key_claimable
       WHERE ${due} AND k.concurrency_key = walk.key
       ORDER BY ${CLAIM_ORDER} LIMIT ${perKey})
     WHERE walk.key IS NOT NULL AND walk.key NOT IN (SELECT value FROM json_each(${full})))
   ORDER BY ${CLAIM_ORDER} LIMIT ${limit}`;
}

/** The window probes of a claim, prepared once per database (see above). */
export interface WindowProbes {
  /**
   * A limited queue's keys at its `keyLimit` (`full`, a JSON array), and whether a claim of
   * `kinds` (JSON array) reads it per key: its window holds too few rows it may take.
   */
  keys(probe: { now: string | null; queue: string; keyLimit: number; kinds: string }): {
    full: string;
    byKey: boolean;
    /**
     * Its window holds due rows of the claim's kinds, none of which the claim may take: all of
     * keys at the limit.
     */
    blocked: boolean;
  };
  /** Whether a claim of `kinds` reads the queues outside `apart` (JSON array) per queue. */
  othersByQueue(probe: { now: string | null; kinds: string; served: string | null; apart: string }): boolean;
}

/** Prepares the {@link WindowProbes} on `db`. */
export function prepareWindowProbes(db: Database.Database): WindowProbes {
  type Window = { read: number; takeable: number };
  type KeyedWindow = Window & { kinded: number };
  const fullKeys = db.prepare<{ queue: string; keyLimit: number }, { keys: string }>(SQLITE_FULL_KEYS);
  const keyedWindow = db.prepare<
    { now: string | null; queue: string; kinds: string; full: string; window: number },
    KeyedWindow
  >(SQLITE_KEYED_WINDOW);
  const othersWindow = db.prepare<
    { now: string | null; kinds: string; served: string | null; apart: string; window: number },
    Window
  >(SQLITE_OTHERS_WINDOW);
  // A full window, less than half of it rows to take: more of the same may follow.
  const sparse = (seen: Window | undefined): boolean =>
    seen !== undefined && seen.read === WINDOW && 2 * seen.takeable < seen.read;
  const window = WINDOW;
  return {
    keys: ({ now, queue, keyLimit, kinds }) => {
      const full = fullKeys.get({ queue, keyLimit })?.keys ?? '[]';
      const seen = keyedWindow.get({ now, queue, kinds, full, window });
      return {
        full,
        byKey: sparse(seen),
        blocked: seen !== undefined && seen.kinded > 0 && seen.takeable === 0,
      };
    },
    othersByQueue: ({ now, kinds, served, apart }) =>
      sparse(othersWindow.get({ now, kinds, served, apart, window })),
  };
}
