import type Database from 'better-sqlite3';
import { FINISHED_KINDS_SQL } from '../finished-kinds-sql.js';
import type { FinishedKind, PruneInput } from '../retention-types.js';
import { toSqliteTime } from './sqlite-row.js';
import { sqliteNowMinus } from './sqlite-time.js';

/** The finished kinds listing ({@link FINISHED_KINDS_SQL}, the same text on both dialects). */
export const SQLITE_FINISHED_KINDS = FINISHED_KINDS_SQL;

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
