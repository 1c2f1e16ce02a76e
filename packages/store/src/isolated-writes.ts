import type { Logger } from '@nudge/core';

/**
 * The batch writes that isolate a row whose write fails for a reason of its own; the
 * `operation` label of `nudge_isolated_writes_total`.
 */
export type IsolatedWriteOperation =
  | 'complete'
  | 'fail'
  | 'release'
  | 'heartbeat'
  | 'progress'
  | 'sweep'
  | 'promote'
  | 'cancel'
  | 'retry'
  | 'retention'
  | 'unhandled-kinds'
  | 'logs';

/** Every {@link IsolatedWriteOperation}, in a fixed order (for metrics that list them all). */
export const ISOLATED_WRITE_OPERATIONS: readonly IsolatedWriteOperation[] = [
  'complete',
  'fail',
  'release',
  'heartbeat',
  'progress',
  'sweep',
  'promote',
  'cancel',
  'retry',
  'retention',
  'unhandled-kinds',
  'logs',
];

/**
 * How much later a pass that isolated a job's write looks at it again, in ms, where the job has
 * no retry delay of its own (a due `SCHEDULED` row the promotion could not make `PENDING`): a
 * minute, long enough that a stuck row costs a pass little, short enough that a cause fixed by
 * hand (a dropped trigger) lets the job go on soon.
 */
export const ISOLATED_RETRY_DELAY_MS = 60_000;

/** A job whose write was left out of a batch, and why; see {@link Store.onIsolatedWrite}. */
export interface IsolatedWrite {
  readonly operation: IsolatedWriteOperation;
  readonly jobId: number;
  /** The database's message. */
  readonly error: string;
  /** SQLSTATE (PostgreSQL) or the extended result code (SQLite, e.g. `SQLITE_CONSTRAINT_UNIQUE`). */
  readonly code: string | undefined;
  /** The constraint, trigger, table or column the database named, when it named one. */
  readonly constraint: string | undefined;
}

/** Listens to isolated writes; see {@link Store.onIsolatedWrite}. */
export type IsolatedWriteListener = (write: IsolatedWrite) => void;

/**
 * SQLSTATE classes that belong to a row rather than to the connection or the statement's text:
 * 22 data exception, 23 integrity constraint, 27 triggered data change, 2F/38/39 routine
 * exceptions, 40 serialization failure and deadlock (raised again after the split, it is the
 * row's), 54 program limit (stack depth of a trigger cascade), P0 PL/pgSQL `RAISE`. Connection
 * loss (08), resources (53), cancels and timeouts (57) and syntax (42) are never a row's: the
 * whole batch is kept and retried. Source: PostgreSQL manual, appendix A "Error Codes".
 */
const PG_ROW_CLASSES = new Set(['22', '23', '27', '2F', '38', '39', '40', '54', 'P0']);

/**
 * SQLite messages of `SQLITE_ERROR` (the generic code) that come from one row's data or
 * triggers: recursion of a trigger cascade, and JSON functions reading a malformed value.
 */
const SQLITE_ROW_MESSAGES = /too many levels of trigger recursion|malformed JSON|JSON cannot hold BLOB/i;

/**
 * Whether `error` is a database error of one row's own (a constraint, a trigger's raise, a
 * cascade's depth, a repeated serialization failure), which splitting the batch can isolate, as
 * opposed to one of the connection, the server or the statement, which every row would meet.
 */
export function isRowWriteError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  if (code.startsWith('SQLITE_')) {
    if (code.startsWith('SQLITE_CONSTRAINT') || code === 'SQLITE_MISMATCH' || code === 'SQLITE_TOOBIG')
      return true;
    return code === 'SQLITE_ERROR' && SQLITE_ROW_MESSAGES.test(String((error as Error).message));
  }
  return code.length === 5 && PG_ROW_CLASSES.has(code.slice(0, 2));
}

/** What {@link writeIsolating} did: the results of the rows written, and the rows left out. */
export interface IsolatingResult<T, R> {
  readonly results: R[];
  readonly isolated: Array<{ readonly item: T; readonly error: unknown }>;
}

/**
 * The step after `part` failed with `error`: the row to leave out when `part` is one row, else
 * its two halves to write each on its own.
 * @throws `error` when it is not a row's ({@link isRowWriteError})
 */
function splitAfter<T>(
  part: readonly T[],
  error: unknown,
): { readonly isolated: { readonly item: T; readonly error: unknown } } | { readonly halves: T[][] } {
  if (!isRowWriteError(error)) throw error;
  const [only] = part;
  if (part.length === 1 && only !== undefined) return { isolated: { item: only, error } };
  const half = Math.ceil(part.length / 2);
  return { halves: [part.slice(0, half), part.slice(half)] };
}

/**
 * Writes `items` with `write`; when it throws a row's error ({@link isRowWriteError}), writes
 * each half on its own, down to single rows, and leaves out a single row that still fails. A
 * batch with one bad row costs about 2·log2(n) more writes; the good rows are all written. Any
 * other error is thrown at once, whatever was written before it (each part is its own write, so
 * a retry of the whole batch is fenced as any repeated outcome is).
 *
 * @throws the first error that is not a row's
 */
export async function writeIsolating<T, R>(
  items: readonly T[],
  write: (part: readonly T[]) => Promise<readonly R[]> | readonly R[],
): Promise<IsolatingResult<T, R>> {
  const result: IsolatingResult<T, R> = { results: [], isolated: [] };
  const run = async (part: readonly T[]): Promise<void> => {
    if (part.length === 0) return;
    try {
      result.results.push(...(await write(part)));
    } catch (error) {
      const next = splitAfter(part, error);
      if ('isolated' in next) result.isolated.push(next.isolated);
      else for (const half of next.halves) await run(half);
    }
  };
  await run(items);
  return result;
}

/** {@link writeIsolating} for synchronous writes (SQLite inside one transaction, each part a savepoint). */
export function writeIsolatingSync<T, R>(
  items: readonly T[],
  write: (part: readonly T[]) => readonly R[],
): IsolatingResult<T, R> {
  const result: IsolatingResult<T, R> = { results: [], isolated: [] };
  const run = (part: readonly T[]): void => {
    if (part.length === 0) return;
    try {
      result.results.push(...write(part));
    } catch (error) {
      const next = splitAfter(part, error);
      if ('isolated' in next) result.isolated.push(next.isolated);
      else for (const half of next.halves) run(half);
    }
  };
  run(items);
  return result;
}

/** The fields a driver error names the failing object by (node-postgres' `DatabaseError`). */
interface DriverErrorFields {
  readonly code?: unknown;
  readonly constraint?: unknown;
  readonly table?: unknown;
  readonly column?: unknown;
  readonly where?: unknown;
}

/** The {@link IsolatedWrite} of job `jobId`, from the driver's error. */
export function isolatedWrite(
  operation: IsolatedWriteOperation,
  jobId: number,
  error: unknown,
): IsolatedWrite {
  const fields = (error ?? {}) as DriverErrorFields;
  const message = error instanceof Error ? error.message : String(error);
  const named = [fields.constraint, fields.table, fields.column].find(
    (v): v is string => typeof v === 'string',
  );
  const sqliteName = /constraint failed: (\S+)|UNIQUE constraint failed: ([^,\s]+)/.exec(message);
  return {
    operation,
    jobId,
    error: message,
    code: typeof fields.code === 'string' ? fields.code : undefined,
    constraint: named ?? sqliteName?.[1] ?? sqliteName?.[2],
  };
}

/** The `last_error` recorded on a job whose write was isolated. */
export function isolatedLastError(write: IsolatedWrite): string {
  const what = write.constraint === undefined ? '' : ` (${write.constraint})`;
  return `nudge could not write this job's ${write.operation}: the database refused it${what}: ${write.error}`;
}

/**
 * A store's isolated writes: each is logged at error level (naming the job, the operation and
 * the constraint) and told to every listener. One per store.
 */
export class IsolatedWrites {
  readonly #listeners = new Set<IsolatedWriteListener>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Adds `listener`; @returns the function that removes it. */
  listen(listener: IsolatedWriteListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Logs and tells each of `writes`. */
  report(writes: readonly IsolatedWrite[]): void {
    for (const write of writes) {
      this.#logger.error(
        {
          jobId: write.jobId,
          operation: write.operation,
          constraint: write.constraint,
          code: write.code,
          err: write.error,
        },
        `job ${write.jobId}: the database refused its ${write.operation}; written the rest of the batch without it`,
      );
      for (const listener of this.#listeners) {
        try {
          listener(write);
        } catch {
          // A listener's failure must not undo the write that was made.
        }
      }
    }
  }
}
