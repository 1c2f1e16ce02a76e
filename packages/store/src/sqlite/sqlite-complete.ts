import type Database from 'better-sqlite3';
import {
  enqueuePlan,
  namedJobParams,
  insertJobsSql,
  sqliteNamedValues,
  type EnqueueRow,
  type ReturnedRow,
} from '../sql/index.js';
import { splitPlannedFollowUps } from '../planned-follow-ups.js';
import type { CompleteInput, FollowUpInput, JobLease } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, STORE_CLOCK } from './sqlite-time.js';

// Invariant: only the current attempt (same id and version, still RUNNING) records a success;
// a given progress replaces `progress`.
const COMPLETE = `
UPDATE nudge_jobs
   SET status = 'SUCCEEDED', result = @result, finished_at = ${SQLITE_NOW}, lease_expires_at = NULL,
       progress = coalesce(@progress, progress)
 WHERE id = @id AND version = @version AND status = 'RUNNING'
RETURNING has_dependents`;

const FOLLOW_UP = sqliteNamedValues(STORE_CLOCK);
const RUN_AT = FOLLOW_UP.values[FOLLOW_UP.columns.indexOf('run_at')];

// A follow-up job, inserted in the completion's transaction only after its parent's completion
// was recorded. Status is set here (as the enqueue does) so that a future run_at is SCHEDULED.
const INSERT_FOLLOW_UP = insertJobsSql({
  columns: [...FOLLOW_UP.columns, 'status', 'created_at'],
  rows: `VALUES (${FOLLOW_UP.values.join(', ')}, CASE WHEN ${RUN_AT} > ${SQLITE_NOW} THEN 'SCHEDULED' ELSE 'PENDING' END,
        ${SQLITE_NOW})`,
});

function followUpParams(f: FollowUpInput, now: string | null): Record<string, unknown> {
  return { ...namedJobParams(f, f.payloadJson), now };
}

/** Prepares the SQLite completion; see {@link Store.complete}. */
export function createSqliteComplete(
  db: Database.Database,
): (items: readonly CompleteInput[], now?: Date) => JobLease[] {
  const statement = db.prepare(COMPLETE);
  const clock = db.prepare(`SELECT ${SQLITE_NOW} AS now`).pluck();
  let insertFollowUp: Database.Statement | undefined;
  // A parent with a throttled, debounced or dependent follow-up enqueues all of its follow-ups
  // through the enqueue plan, as one batch (database clock, not the `now` of a test); a dependency
  // id that names no job counts as one that did not succeed.
  const enqueuePlanned = (rows: readonly EnqueueRow[]): void => {
    const plan = enqueuePlan<ReturnedRow>('sqlite', rows, 'keys', 'unmet');
    let step = plan.next();
    while (!step.done)
      step = plan.next(db.prepare<unknown[], ReturnedRow>(step.value.sql).all(...step.value.params));
  };
  const complete = db.transaction((batch: readonly CompleteInput[], given: string | null) => {
    const { plain: items, planned } = splitPlannedFollowUps(batch);
    // SQLite holds 'now' per statement; with follow-ups, one time for the whole transaction (as
    // PostgreSQL's now()), so a parent's finished_at and its follow-ups' created_at agree.
    const now = given ?? (batch.some((item) => item.followUps) ? (clock.get({ now: null }) as string) : null);
    const written: JobLease[] = [];
    for (const item of items) {
      const params = {
        id: item.id,
        version: item.version,
        result: item.resultJson,
        progress: item.progressJson ?? null,
        now,
      };
      const row = statement.get(params) as { has_dependents: number } | undefined;
      if (row === undefined) continue;
      written.push(
        row.has_dependents === 1
          ? { id: item.id, version: item.version, hasDependents: true }
          : { id: item.id, version: item.version },
      );
      const rows = planned.get(item.id);
      if (rows !== undefined) enqueuePlanned(rows);
      if (item.followUps === undefined) continue;
      insertFollowUp ??= db.prepare(INSERT_FOLLOW_UP);
      for (const followUp of item.followUps) insertFollowUp.run(followUpParams(followUp, now));
    }
    return written;
  });
  return (items, now) => (items.length === 0 ? [] : complete.immediate(items, toSqliteTime(now)));
}
