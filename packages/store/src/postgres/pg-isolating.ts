import type pg from 'pg';
import {
  isolatedLastError,
  isolatedWrite,
  writeIsolating,
  type IsolatedWrite,
  type IsolatedWriteOperation,
} from '../isolated-writes.js';
import { pgMs, pgNow } from './pg-row.js';

/**
 * Runs `fn` inside a savepoint of `client`'s open transaction: a failing statement rolls back to
 * it, so the transaction goes on.
 * @throws whatever `fn` throws, after the rollback to the savepoint
 */
export async function pgSavepoint<T>(client: pg.ClientBase, fn: () => Promise<T>): Promise<T> {
  await client.query('SAVEPOINT nudge_part');
  try {
    const result = await fn();
    await client.query('RELEASE SAVEPOINT nudge_part');
    return result;
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT nudge_part');
    throw error;
  }
}

/**
 * {@link writeIsolating} inside `client`'s transaction: each part in a savepoint.
 * @returns the rows written and the {@link IsolatedWrite} of each row left out
 */
export async function pgWriteIsolating<T extends { readonly id: number }, R>(
  client: pg.ClientBase,
  operation: IsolatedWriteOperation,
  items: readonly T[],
  write: (part: readonly T[]) => Promise<readonly R[]>,
): Promise<{ results: R[]; isolated: IsolatedWrite[] }> {
  const { results, isolated } = await writeIsolating(items, (part) => pgSavepoint(client, () => write(part)));
  return { results, isolated: isolated.map(({ item, error }) => isolatedWrite(operation, item.id, error)) };
}

/** Where a note pushes a job out of the way of the pass that isolated it. */
export interface IsolatedPush {
  /** `lease_expires_at` for a `RUNNING` job the sweep isolated, `run_at` for a `SCHEDULED` one. */
  readonly column: 'lease_expires_at' | 'run_at';
  /** How far from the database's now, in ms. */
  readonly delayMs: (jobId: number) => number;
}

/**
 * Records each isolated write on its job (`last_error`; with `push`, the time the pass that
 * isolated it looks at next moves later, so the next pass does not meet it first again), each in
 * its own statement or savepoint. A note the database refuses too is dropped: the write was
 * already logged and counted. `now` is the tests' clock.
 */
export async function pgNoteIsolated(
  db: pg.Pool | pg.ClientBase,
  writes: readonly IsolatedWrite[],
  options: { inTransaction: boolean; push?: IsolatedPush; now?: Date },
): Promise<void> {
  const set = options.push ? `, ${options.push.column} = ${pgNow('$3')} + ${pgMs('$4')}` : '';
  const text = `UPDATE nudge_jobs SET last_error = $2${set} WHERE id = $1`;
  for (const write of writes) {
    const values: unknown[] = [write.jobId, isolatedLastError(write)];
    if (options.push) values.push(options.now ?? null, options.push.delayMs(write.jobId));
    const note = () => db.query(text, values);
    try {
      if (options.inTransaction) await pgSavepoint(db as pg.ClientBase, note);
      else await note();
    } catch {
      // Refused as well: the row stays as it is, and the pass meets it again.
    }
  }
}
