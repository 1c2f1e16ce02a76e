import type { DependencyFailureMode } from '@nudge/core';
import {
  dependentStart,
  isFinished,
  lockWaitedOn,
  markDependencies,
  pgIdArray,
  startWaitingJob,
  type DependencyStatusRow,
} from './dependency-sql.js';
import { returningList, type ReturnedRow, type Returning } from './returned-row.js';
import type { SqlDialect, SqlQuery } from './sql-query.js';

/**
 * A job a batch inserted `WAITING`: its id, its dependencies (one edge each) as the batch first
 * read them, and its mode.
 */
export interface WaitingJob {
  readonly id: number;
  readonly dependencies: readonly DependencyStatusRow[];
  readonly mode: DependencyFailureMode;
}

/**
 * The end of a batch that inserted `waiting` jobs: marks their dependencies as having dependents
 * ({@link markDependencies}), reads those it first saw unfinished again under a lock held until
 * the commit ({@link lockWaitedOn}; one seen finished has had its outcome), and starts a job whose
 * dependencies finished in between ({@link startWaitingJob}), as the finishing transaction, which
 * could not see the job's edges yet, did not. Returns the rows of the jobs it started (and of any
 * job that cancel cascaded to), read back, by id; none when nothing finished in between, the
 * common case.
 */
export function* settleWaiting<Row extends ReturnedRow>(
  dialect: SqlDialect,
  waiting: readonly WaitingJob[],
  returning: Returning,
): Generator<SqlQuery, Map<number, Row>, readonly Row[]> {
  const out = new Map<number, Row>();
  if (waiting.length === 0) return out;
  const all = new Set<number>();
  const unfinished = new Set<number>();
  for (const job of waiting) {
    for (const row of job.dependencies) {
      all.add(Number(row.id));
      if (!isFinished(row.status)) unfinished.add(Number(row.id));
    }
  }
  const ascending = (ids: Set<number>) => [...ids].sort((a, b) => a - b);
  yield markDependencies(dialect, ascending(all));
  const rows = (yield lockWaitedOn(dialect, ascending(unfinished))) as unknown as DependencyStatusRow[];
  const now = new Map(rows.map((row) => [Number(row.id), row]));
  let started = false;
  for (const job of waiting) {
    // A dependency gone since the first read was deleted finished: it counts as finished, as for the trigger.
    const start = dependentStart(
      job.dependencies.flatMap((row) => (isFinished(row.status) ? [row] : (now.get(Number(row.id)) ?? []))),
      job.mode,
    );
    if (start.status === 'WAITING') continue;
    for (const query of startWaitingJob(dialect, job.id, start)) yield query;
    started = true;
  }
  if (!started) return out;
  const jobIds = waiting.map((job) => job.id);
  const reread = yield dialect === 'postgres'
    ? {
        sql: `SELECT ${returningList(returning)} FROM nudge_jobs WHERE id = ANY($1::bigint[])`,
        params: [pgIdArray(jobIds)],
      }
    : {
        sql: `SELECT ${returningList(returning)} FROM nudge_jobs WHERE id IN (SELECT value FROM json_each(?))`,
        params: [JSON.stringify(jobIds)],
      };
  for (const row of reread) out.set(Number(row.id), row);
  return out;
}
