import type { DependencyFailureMode, JobStatus } from '@nudge/core';
import { sqliteTime } from './sqlite-clock.js';
import type { SqlDialect, SqlQuery } from './sql-query.js';

/** A dependency's row as {@link lockWaitedOn} returns it. */
export interface DependencyStatusRow {
  readonly id: number | string | bigint;
  readonly status: JobStatus;
}

/**
 * A dependency as {@link readDependencies} returns it: one that has not succeeded, or (`status`
 * NULL) an id that names no job.
 */
export interface ReadDependencyRow {
  readonly id: number | string | bigint;
  readonly status: JobStatus | null;
}

/**
 * How a dependent job is inserted: `WAITING` (a dependency has not finished), `CANCELLED` (one
 * already ended `FAILED` or `CANCELLED` and the job cancels on that), or `READY`: every dependency
 * finished, so the job starts as any other (`PENDING`, or `SCHEDULED` for a future start).
 */
export type DependentStart =
  { readonly status: 'WAITING' | 'READY' } | { readonly status: 'CANCELLED'; readonly lastError: string };

/**
 * `ids` as the text of a PostgreSQL `bigint[]`, a string every driver binds alike (the store's
 * `pg` and whatever a caller's Kysely runs on).
 */
export const pgIdArray = (ids: readonly number[]): string => `{${ids.join(',')}}`;

/**
 * Reads the dependencies `ids` that matter to their dependents ({@link ReadDependencyRow}): those
 * that have not succeeded, and the ids that name no job. An id left out succeeded, and a
 * `SUCCEEDED` job never changes again, so it needs no edge and no row here: a batch of jobs that
 * depend on finished history reads back almost nothing. One primary-key probe per id, whatever
 * the table's size. On PostgreSQL those not finished are locked `FOR KEY SHARE` until the
 * transaction ends, which only a delete waits on (retention cannot remove a dependency the batch
 * waits for), not an outcome, a heartbeat or a cancel; a finished one is left alone (a lock writes
 * the row's page, a full page to the WAL after a checkpoint). A dependency finishing after this
 * read is caught by {@link lockWaitedOn} at the end of the batch. The pkey scan of `= ANY` returns
 * rows in id order, so the lock order needs no sort (the store's connections price sorts out).
 */
export function readDependencies(dialect: SqlDialect, ids: readonly number[]): SqlQuery {
  return dialect === 'postgres'
    ? {
        sql:
          'WITH found AS MATERIALIZED (SELECT id, status FROM nudge_jobs WHERE id = ANY($1::bigint[])), ' +
          'locked AS (SELECT id FROM nudge_jobs WHERE id = ANY(ARRAY(SELECT id FROM found ' +
          `WHERE status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED'))) ORDER BY id FOR KEY SHARE) ` +
          `SELECT id, status FROM found WHERE status <> 'SUCCEEDED' AND (SELECT count(*) FROM locked) >= 0 ` +
          'UNION ALL SELECT x.id, NULL FROM unnest($1::bigint[]) AS x (id) WHERE x.id NOT IN (SELECT id FROM found)',
        params: [pgIdArray(ids)],
      }
    : {
        sql:
          'SELECT x.value AS id, j.status FROM json_each(?) AS x LEFT JOIN nudge_jobs AS j ON j.id = x.value ' +
          `WHERE j.status IS NOT 'SUCCEEDED'`,
        params: [JSON.stringify(ids)],
      };
}

/**
 * Sets `has_dependents` on those of `ids` where it is still false, so a dependency's row is
 * written once in its life, not once per dependent. In id order on PostgreSQL; it runs before
 * {@link lockWaitedOn}, so a transaction never upgrades a share lock it holds (two enqueues doing
 * that on one row would deadlock).
 */
export function markDependencies(dialect: SqlDialect, ids: readonly number[]): SqlQuery {
  return dialect === 'postgres'
    ? {
        sql: 'UPDATE nudge_jobs SET has_dependents = true WHERE id = ANY($1::bigint[]) AND NOT has_dependents',
        params: [pgIdArray(ids)],
      }
    : {
        sql:
          'UPDATE nudge_jobs SET has_dependents = 1 ' +
          'WHERE id IN (SELECT value FROM json_each(?)) AND has_dependents = 0 RETURNING id',
        params: [JSON.stringify(ids)],
      };
}

/**
 * The last read of a batch: the status of the dependencies `ids` of its `WAITING` jobs that its
 * first read found unfinished, locked
 * `FOR SHARE` in id order on PostgreSQL until the commit that follows. Invariant: a dependency
 * finished before this read is seen finished here (the read waits for a finishing transaction to
 * commit), and one finishing after it waits for the commit, then sees the waiting jobs (their
 * edges on SQLite, their rows in the dependents' index on PostgreSQL). Taken last, the
 * lock holds an outcome, heartbeat or cancel of the dependency only while the batch commits.
 * SQLite has one writer, so its read sees what the batch's first read saw.
 */
export function lockWaitedOn(dialect: SqlDialect, ids: readonly number[]): SqlQuery {
  return dialect === 'postgres'
    ? {
        sql: 'SELECT id, status FROM nudge_jobs WHERE id = ANY($1::bigint[]) ORDER BY id FOR SHARE',
        params: [pgIdArray(ids)],
      }
    : {
        sql: 'SELECT id, status FROM nudge_jobs WHERE id IN (SELECT value FROM json_each(?))',
        params: [JSON.stringify(ids)],
      };
}

/**
 * The statements that start a job inserted `WAITING` whose dependencies finished before
 * {@link lockWaitedOn} read them (a finisher that committed while the batch ran): `READY` makes it
 * `PENDING` (`SCHEDULED` while its run_at is ahead) and forgets its edges (SQLite), waking workers
 * on PostgreSQL; `CANCELLED` cancels it, and the dependency trigger forgets its edges and cancels
 * its own dependents. A job no longer `WAITING` is left alone.
 */
export function startWaitingJob(
  dialect: SqlDialect,
  jobId: number,
  start: Exclude<DependentStart, { status: 'WAITING' }>,
): SqlQuery[] {
  const pg = dialect === 'postgres';
  if (start.status === 'CANCELLED') {
    return [
      {
        sql: pg
          ? `UPDATE nudge_jobs SET status = 'CANCELLED', finished_at = now(), last_error = $2 WHERE id = $1 AND status = 'WAITING'`
          : `UPDATE nudge_jobs SET status = 'CANCELLED', finished_at = ${sqliteTime()}, last_error = ? WHERE id = ? AND status = 'WAITING' RETURNING id`,
        params: pg ? [jobId, start.lastError] : [start.lastError, jobId],
      },
    ];
  }
  if (pg) {
    return [
      {
        sql:
          `WITH started AS (UPDATE nudge_jobs SET status = CASE WHEN run_at > now() THEN 'SCHEDULED' ELSE 'PENDING' END ` +
          `WHERE id = $1 AND status = 'WAITING' RETURNING id, status) ` +
          `SELECT pg_notify('nudge_jobs', '') FROM started WHERE status = 'PENDING'`,
        params: [jobId],
      },
    ];
  }
  return [
    {
      sql:
        // The job's edges by the primary key, (depends_on_id, job_id), from its own list.
        `DELETE FROM nudge_job_dependencies WHERE depends_on_id IN ` +
        `(SELECT x.value FROM nudge_jobs AS j, json_each(j.depends_on) AS x WHERE j.id = ? AND j.status = 'WAITING') ` +
        `AND job_id = ? RETURNING job_id`,
      params: [jobId, jobId],
    },
    {
      sql:
        `UPDATE nudge_jobs SET status = CASE WHEN run_at > ${sqliteTime()} THEN 'SCHEDULED' ELSE 'PENDING' END ` +
        `WHERE id = ? AND status = 'WAITING' RETURNING id`,
      params: [jobId],
    },
  ];
}

/** Whether a job of `status` has finished: `SUCCEEDED`, `FAILED` or `CANCELLED`. */
export const isFinished = (status: JobStatus): boolean =>
  status === 'SUCCEEDED' || status === 'FAILED' || status === 'CANCELLED';

/**
 * The start of a job whose dependencies are `rows`, by {@link DependentStart} (a dependency that
 * succeeded may be left out of `rows`: it changes nothing). `missing` are ids
 * that name no job, counted as dependencies that did not succeed (a follow-up's dependencies are
 * read only when its parent completes; see `enqueuePlan`): `cancel` inserts the job `CANCELLED`,
 * `run` leaves them out.
 */
export function dependentStart(
  rows: readonly DependencyStatusRow[],
  mode: DependencyFailureMode,
  missing: readonly number[] = [],
): DependentStart {
  const [absent] = missing;
  if (absent !== undefined && mode === 'cancel')
    return { status: 'CANCELLED', lastError: `dependency ${absent} does not exist` };
  const failed = rows.find((row) => row.status === 'FAILED' || row.status === 'CANCELLED');
  if (failed && mode === 'cancel')
    return { status: 'CANCELLED', lastError: `dependency ${String(failed.id)} ended ${failed.status}` };
  return { status: rows.every((row) => isFinished(row.status)) ? 'READY' : 'WAITING' };
}

/** The edges of a job inserted `WAITING`: its id and the dependencies it waits for. */
export interface JobEdges {
  readonly jobId: number;
  readonly ids: readonly number[];
}

/**
 * Records the edges of `WAITING` jobs on SQLite, one statement for many jobs: one row of
 * `nudge_job_dependencies` per job and dependency, which the dependency trigger reads when a
 * dependency finishes (PostgreSQL keeps no such table: it finds the waiting jobs by a partial GIN
 * index on their own `depends_on`, migration 0021). The rows go in the order of the table's
 * primary key, `(depends_on_id, job_id)` (jobs are given in id order), which makes a million edges
 * several times cheaper to write than one job's edges at a time. Returns each job id once per edge
 * (SQLite's statements are run for their rows).
 */
export function insertDependencyEdges(jobs: readonly JobEdges[]): SqlQuery {
  const byDependency = new Map<number, number[]>();
  for (const { jobId, ids } of jobs) {
    for (const id of ids) {
      const waiting = byDependency.get(id);
      if (waiting) waiting.push(jobId);
      else byDependency.set(id, [jobId]);
    }
  }
  const order = [...byDependency.keys()].sort((a, b) => a - b);
  // {"dependency": [job, …], …}: the key is read once per dependency, not once per edge.
  const json = `{${order.map((id) => `"${id}":[${(byDependency.get(id) ?? []).join(',')}]`).join(',')}}`;
  return {
    sql:
      'INSERT INTO nudge_job_dependencies (job_id, depends_on_id) ' +
      'SELECT j.value, CAST(d.key AS INTEGER) FROM json_each(?) AS d, json_each(d.value) AS j RETURNING job_id',
    params: [json],
  };
}
