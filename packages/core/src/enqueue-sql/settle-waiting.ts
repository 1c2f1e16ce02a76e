import type { DependencyFailureMode } from '../job-options.js';
import {
  dependentStart,
  lockWaitedOn,
  markDependencies,
  pgIdArray,
  startWaitingJob,
  type DependencyStatusRow,
} from './dependency-sql.js';
import { returningList, type ReturnedRow, type Returning } from './returned-row.js';
import type { SqlDialect, SqlQuery } from './sql-query.js';

/** A job a batch inserted `WAITING`: its id, the dependencies it has edges to, and its mode. */
export interface WaitingJob {
  readonly id: number;
  readonly edges: readonly number[];
  readonly mode: DependencyFailureMode;
}

/**
 * The end of a batch that inserted `waiting` jobs: marks their dependencies as having dependents
 * ({@link markDependencies}), reads them again under a lock held until the commit
 * ({@link lockWaitedOn}), and starts a job whose dependencies finished since the batch first read
 * them ({@link startWaitingJob}), as the finishing transaction, which could not see the job's
 * edges yet, did not. Returns the rows of the jobs it started (and of any job that cancel
 * cascaded to), read back, by id; none when nothing finished in between, the common case.
 */
export function* settleWaiting<Row extends ReturnedRow>(
  dialect: SqlDialect,
  waiting: readonly WaitingJob[],
  returning: Returning,
): Generator<SqlQuery, Map<number, Row>, readonly Row[]> {
  const out = new Map<number, Row>();
  if (waiting.length === 0) return out;
  const ids = [...new Set(waiting.flatMap((job) => job.edges))].sort((a, b) => a - b);
  yield markDependencies(dialect, ids);
  const rows = (yield lockWaitedOn(dialect, ids)) as unknown as DependencyStatusRow[];
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  let started = false;
  for (const job of waiting) {
    // A dependency gone since the first read was deleted finished: it counts as finished, as for the trigger.
    const start = dependentStart(
      job.edges.flatMap((id) => byId.get(id) ?? []),
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
