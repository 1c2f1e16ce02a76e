import type Database from 'better-sqlite3';
import { TERMINAL_STATUSES } from '@nudge/core';
import type { FinishedKind, PruneInput } from '../retention-types.js';
import { toSqliteTime } from './sqlite-row.js';
import { sqliteNowMinus } from './sqlite-time.js';

// A loose index scan per terminal status: each step finds the next kind above the last one
// through the (status, kind, finished_at) index, so the cost grows with the number of pairs, not
// rows; the three statuses' scans run in one statement.
export const SQLITE_FINISHED_KINDS = `
WITH RECURSIVE statuses(status) AS (
  VALUES ${TERMINAL_STATUSES.map((status) => `('${status}')`).join(', ')}
), pairs(status, kind) AS (
  SELECT s.status, (SELECT min(j.kind) FROM nudge_jobs AS j
                     WHERE j.status = s.status AND j.finished_at IS NOT NULL)
    FROM statuses AS s
  UNION ALL
  SELECT p.status, (SELECT min(j.kind) FROM nudge_jobs AS j
                     WHERE j.status = p.status AND j.finished_at IS NOT NULL AND j.kind > p.kind)
    FROM pairs AS p WHERE p.kind IS NOT NULL
)
SELECT status, kind FROM pairs WHERE kind IS NOT NULL ORDER BY status, kind`;

// @status, @kind, @olderThanMs, @limit, @now. One statement is its own short write transaction;
// stored times are fixed-width ISO text, so text order is time order.
export const SQLITE_PRUNE_FINISHED = `
DELETE FROM nudge_jobs
 WHERE id IN (SELECT id FROM nudge_jobs
               WHERE status = @status AND kind = @kind AND finished_at < ${sqliteNowMinus('@olderThanMs')}
               ORDER BY finished_at
               LIMIT @limit)`;

/** Retention statements on SQLite; see {@link Store.finishedKinds} and {@link Store.pruneFinished}. */
export interface SqliteRetention {
  finishedKinds(): FinishedKind[];
  prune(input: PruneInput): number;
}

/** Prepares the retention statements. */
export function createSqliteRetention(db: Database.Database): SqliteRetention {
  const kinds = db.prepare(SQLITE_FINISHED_KINDS);
  const prune = db.prepare(SQLITE_PRUNE_FINISHED);
  return {
    finishedKinds: () => kinds.all() as FinishedKind[],
    prune: (input) =>
      prune.run({
        status: input.status,
        kind: input.kind,
        olderThanMs: input.olderThanMs,
        limit: input.limit,
        now: toSqliteTime(input.now),
      }).changes,
  };
}
