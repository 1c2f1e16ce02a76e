import type Database from 'better-sqlite3';
import type { TerminalStatus } from '@nudge/core';
import type { PruneInput } from '../retention-types.js';
import { toSqliteTime } from './sqlite-row.js';
import { sqliteNowMinus } from './sqlite-time.js';

// @status. A loose index scan: min(kind) above the last one is one probe of the finished index.
export const SQLITE_FINISHED_KINDS = `
WITH RECURSIVE kinds(kind) AS (
  SELECT min(kind) FROM nudge_jobs WHERE status = @status AND finished_at IS NOT NULL
  UNION ALL
  SELECT (SELECT min(j.kind) FROM nudge_jobs AS j
           WHERE j.status = @status AND j.finished_at IS NOT NULL AND j.kind > kinds.kind)
    FROM kinds WHERE kinds.kind IS NOT NULL
)
SELECT kind FROM kinds WHERE kind IS NOT NULL`;

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
  finishedKinds(status: TerminalStatus): string[];
  prune(input: PruneInput): number;
}

/** Prepares the retention statements. */
export function createSqliteRetention(db: Database.Database): SqliteRetention {
  const kinds = db.prepare(SQLITE_FINISHED_KINDS);
  const prune = db.prepare(SQLITE_PRUNE_FINISHED);
  return {
    finishedKinds: (status) => (kinds.all({ status }) as { kind: string }[]).map((row) => row.kind),
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
