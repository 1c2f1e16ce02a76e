import type Database from 'better-sqlite3';
import { FINISHED_KINDS_SQL } from '../finished-kinds-sql.js';
import type { FinishedKind, PruneInput } from '../retention-types.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowMinus } from './sqlite-time.js';
import { isRowWriteError, type IsolatedWrite, type IsolatedWrites } from '../isolated-writes.js';
import { sqliteNoteIsolated, sqliteWriteIsolating } from './sqlite-isolating.js';

/** The finished kinds listing ({@link FINISHED_KINDS_SQL}, the same text on both dialects). */
export const SQLITE_FINISHED_KINDS = FINISHED_KINDS_SQL;

/**
 * Keeps a throttled job whose window is still open (`closes_at` after now): the window lasts
 * while its job is kept, so deleting the job would end the window early.
 */
const WINDOW_CLOSED = `(throttle_key IS NULL OR NOT EXISTS (
                         SELECT 1 FROM nudge_throttle_windows w
                          WHERE w.job_id = nudge_jobs.id AND w.closes_at > ${SQLITE_NOW}))`;

// @status, @kind, @olderThanMs, @limit, @now. One statement is its own short write transaction;
// stored times are fixed-width ISO text, so text order is time order.
export const SQLITE_PRUNE_FINISHED = `
DELETE FROM nudge_jobs
 WHERE id IN (SELECT id FROM nudge_jobs
               WHERE status = @status AND kind = @kind AND finished_at < ${sqliteNowMinus('@olderThanMs')}
                 AND ${WINDOW_CLOSED}
               ORDER BY finished_at
               LIMIT @limit)`;

// The prune by parts, after the database refused a batch: the batch's rows less those already
// refused, then each part of them by id.
const PRUNE_CANDIDATES = `
SELECT id FROM nudge_jobs
 WHERE status = @status AND kind = @kind AND finished_at < ${sqliteNowMinus('@olderThanMs')}
   AND ${WINDOW_CLOSED}
   AND id NOT IN (SELECT value FROM json_each(@refused))
 ORDER BY finished_at
 LIMIT @limit`;
const PRUNE_IDS = `DELETE FROM nudge_jobs WHERE id IN (SELECT value FROM json_each(@ids))`;

/** Retention statements on SQLite; see {@link Store.finishedKinds} and {@link Store.pruneFinished}. */
export interface SqliteRetention {
  finishedKinds(): FinishedKind[];
  prune(input: PruneInput): number;
}

/**
 * Prepares the retention statements. A batch the database refuses is deleted again by parts,
 * isolating the rows it refuses (reported to `isolated`; they stay, and the next run meets them
 * again), topped up past them so a call still deletes `limit` rows while there are that many.
 */
export function createSqliteRetention(db: Database.Database, isolated: IsolatedWrites): SqliteRetention {
  const kinds = db.prepare(SQLITE_FINISHED_KINDS);
  const prune = db.prepare(SQLITE_PRUNE_FINISHED);
  const candidates = db.prepare<Record<string, unknown>, { id: number }>(PRUNE_CANDIDATES);
  const pruneIds = db.prepare(PRUNE_IDS);
  const byParts = db.transaction((input: PruneInput, now: string | null) => {
    const refused: IsolatedWrite[] = [];
    let deleted = 0;
    for (;;) {
      const want = input.limit - deleted;
      const rows = candidates.all({
        status: input.status,
        kind: input.kind,
        olderThanMs: input.olderThanMs,
        limit: want,
        now,
        refused: JSON.stringify(refused.map((r) => r.jobId)),
      });
      const written = sqliteWriteIsolating(db, 'retention', rows, (part) => [
        pruneIds.run({ ids: JSON.stringify(part.map((r) => r.id)) }).changes,
      ]);
      deleted += written.results.reduce((a, b) => a + b, 0);
      refused.push(...written.isolated);
      if (written.isolated.length === 0 || rows.length < want || deleted >= input.limit) break;
    }
    sqliteNoteIsolated(db, refused, { now });
    return { deleted, refused };
  });
  return {
    finishedKinds: () => kinds.all() as FinishedKind[],
    prune: (input) => {
      const now = toSqliteTime(input.now);
      try {
        return prune.run({
          status: input.status,
          kind: input.kind,
          olderThanMs: input.olderThanMs,
          limit: input.limit,
          now,
        }).changes;
      } catch (error) {
        if (!isRowWriteError(error)) throw error;
        const { deleted, refused } = byParts.immediate(input, now);
        isolated.report(refused);
        return deleted;
      }
    },
  };
}
