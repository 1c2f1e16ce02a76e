import { NudgeError, type Enqueuer, type JobStatus } from '@nudge/core';
import {
  dependentStart,
  insertDependencyEdges,
  readDependencies,
  type DependencyStatusRow,
  type JobEdges,
  type ReadDependencyRow,
} from './dependency-sql.js';
import { dedupeSteps, isDeduped } from './dedupe-steps.js';
import { keyedRepeatConflict } from './keyed-repeat.js';
import { DEPENDENT_EXTRA_PARAMS, insertDependentJobs, type DependentRow } from './insert-dependents.js';
import { columnsShape, presentColumns, withEnqueuer, type EnqueueRow } from './job-columns.js';
import { pgInsertJobs } from './pg-insert-jobs.js';
import { ReadIds } from './read-ids.js';
import { returnedDependencies, returningList, type ReturnedRow, type Returning } from './returned-row.js';
import { settleWaiting, type WaitingJob } from './settle-waiting.js';
import { sqliteInsertJobs, sqliteParamCount } from './sqlite-insert-jobs.js';
import type { SqlDialect, SqlQuery } from './sql-query.js';

/**
 * Bind parameters per statement: below SQLite's 32,766 and PostgreSQL's 65,535, whatever the
 * columns of a row (PostgreSQL's insert binds one parameter in all).
 */
const MAX_PARAMS = 30_000;
/** Rows per INSERT at most, however few columns they have. */
const MAX_ROWS = 1000;
/** Dependency ids per first read of a batch's dependencies, at most. */
const MAX_READ_IDS = 50_000;
/** Edges per statement that records them, at most (one job's edges are never split). */
const MAX_EDGES = 250_000;
/** `(kind, key)` pairs per read-back of existing jobs. */
const MAX_KEYS_PER_READ = 500;

/**
 * What a `dependsOn` id that names no job does: `'refuse'` throws `DEPENDENCY_NOT_FOUND` (a
 * producer, who can fix the request), and a repeat of a keyed job whose `dependsOn` differs from
 * the existing job's throws `IDEMPOTENCY_KEY_CONFLICT`; `'unmet'` counts it as a dependency that did
 * not succeed, and answers a repeat with the existing job whatever its dependencies (a handler's
 * follow-up, written with its parent's completion, which must not fail for it).
 */
export type MissingDependency = 'refuse' | 'unmet';

/** One job's outcome in a plan: the row returned for it, and whether this plan inserted it. */
export interface PlannedJob<Row extends ReturnedRow> {
  readonly row: Row;
  readonly created: boolean;
}

/**
 * A keyed job conflicted, but its existing row could not be read back: deleted in between, or not
 * visible to this transaction. Enqueueing it again either inserts it or finds it.
 */
export class EnqueueReadBackError extends Error {
  constructor(kind: string, key: string) {
    super(
      `the job of kind ${kind} and idempotency key ${JSON.stringify(key)} conflicted but could not be read back ` +
        '(deleted in between, or not visible to this transaction): enqueue it again',
    );
    this.name = 'EnqueueReadBackError';
  }
}

/** `?` placeholders as the dialect wants them: `$1, $2, …` on PostgreSQL. */
function numbered(dialect: SqlDialect, sql: string): string {
  if (dialect === 'sqlite') return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function readBackQuery(
  dialect: SqlDialect,
  keys: ReadonlyArray<readonly [string, string]>,
  returning: Returning,
): SqlQuery {
  const pairs = keys.map(() => '(?, ?)').join(', ');
  const sql = `SELECT ${returningList(returning)} FROM nudge_jobs WHERE (kind, idempotency_key) IN (VALUES ${pairs})`;
  return { sql: numbered(dialect, sql), params: keys.flat() };
}

/** Whether `job` has dependencies: it is inserted after its dependencies are read. */
const hasDependencies = (job: EnqueueRow): boolean => job.dependsOn !== undefined && job.dependsOn.length > 0;

/**
 * Whether `job` takes several statements that must share one transaction, whatever the batch
 * around it: its dependencies are read before it is inserted, or it is throttled or debounced
 * (a window opens with its job, or not at all). Such a job is never claimed by its producer.
 */
export const takesSteps = (job: EnqueueRow): boolean => hasDependencies(job) || isDeduped(job);

/**
 * Consecutive jobs that set the same fields, as many as one INSERT takes: `[start, end)`. Jobs
 * with dependencies go in chunks of their own, and one that depends on a job of the chunk by
 * index starts the next chunk (that job's id comes with the chunk's INSERT).
 */
function chunks(dialect: SqlDialect, jobs: readonly EnqueueRow[]): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  let shape = '';
  let params = 0;
  jobs.forEach((job, index) => {
    const columns = presentColumns(job);
    const dependent = hasDependencies(job);
    const jobShape = dependent ? `dependent ${columnsShape(columns)}` : columnsShape(columns);
    const jobParams = dependent
      ? sqliteParamCount(columns) + DEPENDENT_EXTRA_PARAMS
      : dialect === 'sqlite'
        ? sqliteParamCount(columns)
        : 0;
    const current = out[out.length - 1];
    const refersIntoChunk =
      current !== undefined &&
      (job.dependsOn ?? []).some((ref) => typeof ref !== 'number' && ref.index >= current.start);
    // A throttled or debounced job takes its own steps: a chunk of its own, and none joins it.
    const alone = isDeduped(job) || (current !== undefined && isDeduped(jobs[current.start] as EnqueueRow));
    if (
      alone ||
      !current ||
      shape !== jobShape ||
      refersIntoChunk ||
      index - current.start >= MAX_ROWS ||
      params + jobParams > MAX_PARAMS
    ) {
      out.push({ start: index, end: index + 1 });
      shape = jobShape;
      params = jobParams;
      return;
    }
    current.end = index + 1;
    params += jobParams;
  });
  return out;
}

const keyOf = (kind: string, key: string): string => `${kind}\u0000${key}`;

/**
 * Whether {@link enqueuePlan} runs a single statement for `jobs`: one INSERT and no idempotency
 * key (which may need a read-back). A single statement is atomic without a transaction.
 */
export function isSingleStatement(dialect: SqlDialect, jobs: readonly EnqueueRow[]): boolean {
  // Keys first: a keyed batch needs no chunking to answer. A throttled or debounced job, or one
  // with dependencies, takes several statements, which must share a transaction.
  return (
    jobs.every((job) => job.idempotencyKey === undefined && !takesSteps(job)) &&
    chunks(dialect, jobs).length <= 1
  );
}

/**
 * The ids `job` depends on, without repeats, in the producer's order: `{ index }` is the id of
 * that earlier job of the batch (`ids[index]`).
 * @throws NudgeError `INVALID_REQUEST` for an index that is not an earlier job of the batch
 */
function resolveDependencies(
  job: EnqueueRow,
  index: number,
  ids: ReadonlyArray<number | undefined>,
): number[] {
  const out = new Set<number>();
  for (const [at, ref] of (job.dependsOn ?? []).entries()) {
    if (typeof ref === 'number') {
      out.add(ref);
      continue;
    }
    const id = ref.index < index ? ids[ref.index] : undefined;
    if (id === undefined) {
      throw new NudgeError(
        'INVALID_REQUEST',
        `/jobs/${index}/dependsOn/${at} refers to job ${ref.index} of the batch, which is not earlier than this job: a job may depend only on jobs before it`,
      );
    }
    out.add(id);
  }
  return [...out];
}

/**
 * The statements that enqueue `jobs` (already validated against the job contract), as a
 * generator: it yields each statement, is resumed with the rows that statement returned, and
 * returns each job's row and whether it was created, in input order. Runs of jobs that set the
 * same fields become one INSERT each ({@link pgInsertJobs}, {@link sqliteInsertJobs}: up to 1,000
 * rows, `ON CONFLICT (kind, idempotency_key) … DO NOTHING RETURNING`); omitted fields take the
 * columns' defaults. Rows come back sorted by id (ids ascend in input order); a keyed job missing
 * from them existed already (or repeats an earlier job of the batch) and is read back. A throttled
 * or debounced job takes its own statements in its place in the batch (`dedupeSteps`). Driver-free:
 * the store and the client each run the statements in one transaction, so a batch is all or
 * nothing. Jobs with `dependsOn` go in runs of their own: their dependencies are read (once per
 * batch, {@link readDependencies}), each is inserted `WAITING`, `CANCELLED` or as any other job
 * ({@link dependentStart}, {@link insertDependentJobs}), and the `WAITING` jobs' edges are recorded
 * ({@link insertDependencyEdges}, on SQLite). The batch ends with
 * {@link settleWaiting}: the dependencies of its `WAITING` jobs are marked and locked, and a job
 * whose dependencies finished meanwhile is started.
 * @param missingDependency - what a dependency id that names no job does ({@link MissingDependency})
 * @param enqueuer - the API key that enqueues: its id is written to `enqueued_by` of every job
 *   inserted, and a debounce by a key that is not an admin's replaces only that key's job
 * @throws NudgeError `DEPENDENCY_NOT_FOUND` when a dependency id names no job (with `'refuse'`);
 *   `IDEMPOTENCY_KEY_CONFLICT` when a keyed job exists with other dependencies than the repeat
 *   asks for (with `'refuse'`); `INVALID_REQUEST` when `{ index }` is not an earlier job of the
 *   batch; `DEBOUNCE_OWNED_BY_OTHER_KEY` (see `dedupeSteps`)
 * @throws EnqueueReadBackError when a conflicting job cannot be read back
 * @throws DedupeContentionError when a throttled or debounced job kept losing to concurrent producers
 * @throws Error when the database returned rows that do not match the jobs (a foreign table)
 */
export function* enqueuePlan<Row extends ReturnedRow>(
  dialect: SqlDialect,
  given: readonly EnqueueRow[],
  returning: Returning,
  missingDependency: MissingDependency = 'refuse',
  enqueuer?: Enqueuer,
): Generator<SqlQuery, Array<PlannedJob<Row>>, readonly Row[]> {
  const jobs = enqueuer === undefined ? given : given.map((job) => withEnqueuer(job, enqueuer));
  const results = new Array<PlannedJob<Row> | undefined>(jobs.length);
  // Keyed jobs that inserted nothing, with the dependency ids they asked for (resolved).
  const missing: Array<{ index: number; kind: string; key: string; asked: readonly number[] }> = [];
  // Dependencies read so far: every id read, and the status of those not SUCCEEDED (null: no such
  // job). A later read would see nothing newer that matters, as settleWaiting reads them again
  // under a lock.
  const read = new ReadIds();
  const statuses = new Map<number, JobStatus | null>();
  const waitingJobs: WaitingJob[] = [];
  // Edges not yet written: they are written together, before anything that could finish a job.
  let unwritten: JobEdges[] = [];
  let unwrittenCount = 0;
  function* writeEdges(): Generator<SqlQuery, void, readonly Row[]> {
    // SQLite only: PostgreSQL finds a dependency's waiting jobs by an index on their own lists.
    if (unwritten.length > 0) yield insertDependencyEdges(unwritten);
    unwritten = [];
    unwrittenCount = 0;
  }
  // Keyed jobs that conflicted are read back before a later job refers to them by index.
  function* readBack(): Generator<SqlQuery, void, readonly Row[]> {
    const existing = new Map<string, Row>();
    for (let start = 0; start < missing.length; start += MAX_KEYS_PER_READ) {
      const keys = missing
        .slice(start, start + MAX_KEYS_PER_READ)
        .map(({ kind, key }) => [kind, key] as const);
      for (const row of yield readBackQuery(dialect, keys, returning))
        existing.set(keyOf(row.kind, row.ikey ?? ''), row);
    }
    for (const { index, kind, key, asked } of missing) {
      const row = existing.get(keyOf(kind, key));
      if (row === undefined) throw new EnqueueReadBackError(kind, key);
      if (missingDependency === 'refuse') {
        const existingJob = { ...row, idempotencyKey: row.ikey, dependsOn: returnedDependencies(row) };
        const conflict = keyedRepeatConflict(jobs.length > 1 ? `/jobs/${index}` : '', existingJob, asked);
        if (conflict) throw conflict;
      }
      results[index] = { row, created: false };
    }
    missing.length = 0;
  }
  for (const { start, end } of chunks(dialect, jobs)) {
    const slice = jobs.slice(start, end);
    const [single] = slice;
    if (single !== undefined && isDeduped(single)) {
      yield* writeEdges();
      results[start] = yield* dedupeSteps<Row>(dialect, single, returning, enqueuer);
      continue;
    }
    const first = slice[0] as EnqueueRow;
    let insert: SqlQuery;
    let dependents: Array<DependentRow & { readonly found: DependencyStatusRow[] }> = [];
    let resolved: number[][] = [];
    if (hasDependencies(first)) {
      if (missing.length > 0) yield* readBack();
      const ids = results.map((result) => (result === undefined ? undefined : Number(result.row.id)));
      resolved = slice.map((job, k) => resolveDependencies(job, start + k, ids));
      const unread = read.take(resolved);
      for (let at = 0; at < unread.length; at += MAX_READ_IDS) {
        const rows = (yield readDependencies(
          dialect,
          unread.slice(at, at + MAX_READ_IDS),
        )) as unknown as ReadDependencyRow[];
        for (const row of rows) statuses.set(Number(row.id), row.status);
      }
      dependents = slice.map((job, k) => {
        const dependencies = resolved[k] as number[];
        // Edges (found) only to jobs that exist and may still finish, or finish again after a
        // retry: the dependency trigger would count a missing one as finished.
        const found: DependencyStatusRow[] = [];
        const unknown: number[] = [];
        for (const id of dependencies) {
          const status = statuses.get(id);
          if (status === null) unknown.push(id);
          else if (status !== undefined) found.push({ id, status });
        }
        if (unknown.length > 0 && missingDependency === 'refuse') {
          throw new NudgeError(
            'DEPENDENCY_NOT_FOUND',
            `${jobs.length > 1 ? `/jobs/${start + k}/dependsOn` : '/dependsOn'} names job${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}, which do${unknown.length > 1 ? '' : 'es'} not exist: depend only on jobs that exist (or were not deleted by retention)`,
          );
        }
        const begin = dependentStart(found, job.onDependencyFailure ?? 'cancel', unknown);
        return { job, ids: dependencies, start: begin, found };
      });
      insert = insertDependentJobs(dialect, dependents, returning);
    } else {
      insert = dialect === 'postgres' ? pgInsertJobs(slice, returning) : sqliteInsertJobs(slice, returning);
    }
    const rows = [...(yield insert)].sort((a, b) => Number(a.id) - Number(b.id));
    let next = 0;
    for (let index = start; index < end; index += 1) {
      const job = jobs[index] as EnqueueRow;
      const row = rows[next];
      const key = job.idempotencyKey;
      if (row && row.kind === job.kind && (row.ikey ?? undefined) === key) {
        results[index] = { row, created: true };
        next += 1;
        const dependent = dependents[index - start];
        if (dependent?.start.status === 'WAITING') {
          if (dialect === 'sqlite') {
            const edges = dependent.found.map((found) => found.id as number);
            if (unwrittenCount + edges.length > MAX_EDGES) yield* writeEdges();
            unwritten.push({ jobId: Number(row.id), ids: edges });
            unwrittenCount += edges.length;
          }
          waitingJobs.push({
            id: Number(row.id),
            dependencies: dependent.found,
            mode: job.onDependencyFailure ?? 'cancel',
          });
        }
      } else if (key !== undefined) {
        missing.push({ index, kind: job.kind, key, asked: resolved[index - start] ?? [] });
      } else {
        throw new Error(`INSERT … RETURNING returned no row for job ${index} (kind ${job.kind})`);
      }
    }
  }
  yield* readBack();
  yield* writeEdges();
  const started = yield* settleWaiting<Row>(dialect, waitingJobs, returning);
  if (started.size > 0) {
    for (const [index, result] of results.entries()) {
      const row = result && started.get(Number(result.row.id));
      if (result && row) results[index] = { ...result, row };
    }
  }
  return results as Array<PlannedJob<Row>>;
}
