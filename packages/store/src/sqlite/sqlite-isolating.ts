import type Database from 'better-sqlite3';
import {
  isolatedLastError,
  isolatedWrite,
  writeIsolatingSync,
  type IsolatedWrite,
  type IsolatedWriteOperation,
} from '../isolated-writes.js';
import { sqliteNowPlus } from './sqlite-time.js';

/**
 * {@link writeIsolatingSync} inside the open transaction of `db`: each part runs in a savepoint
 * (better-sqlite3 makes a transaction function called inside a transaction a savepoint), so a
 * part the database refuses is rolled back alone.
 * @returns the rows written and the {@link IsolatedWrite} of each row left out
 */
export function sqliteWriteIsolating<T extends { readonly id: number }, R>(
  db: Database.Database,
  operation: IsolatedWriteOperation,
  items: readonly T[],
  write: (part: readonly T[]) => readonly R[],
): { results: R[]; isolated: IsolatedWrite[] } {
  const savepoint = db.transaction((part: readonly T[]) => write(part));
  const { results, isolated } = writeIsolatingSync(items, (part) => savepoint(part));
  return { results, isolated: isolated.map(({ item, error }) => isolatedWrite(operation, item.id, error)) };
}

/** Where a note pushes a job out of the way of the pass that isolated it (see the PostgreSQL twin). */
export interface SqliteIsolatedPush {
  readonly column: 'lease_expires_at' | 'run_at';
  /** How far from the database's now, in ms. */
  readonly delayMs: (jobId: number) => number;
}

/**
 * Records each isolated write on its job (`last_error`, and with `push` the time its pass looks
 * at next moves later), each in a savepoint of the open transaction; a note refused too is
 * dropped (the write was already logged and counted). `now` is the tests' clock, as stored text.
 */
export function sqliteNoteIsolated(
  db: Database.Database,
  writes: readonly IsolatedWrite[],
  options: { push?: SqliteIsolatedPush; now: string | null },
): void {
  if (writes.length === 0) return;
  const set = options.push ? `, ${options.push.column} = ${sqliteNowPlus('@delayMs')}` : '';
  const statement = db.prepare(`UPDATE nudge_jobs SET last_error = @error${set} WHERE id = @id`);
  const note = db.transaction((params: Record<string, unknown>) => statement.run(params));
  for (const write of writes) {
    const params: Record<string, unknown> = { id: write.jobId, error: isolatedLastError(write) };
    if (options.push) Object.assign(params, { delayMs: options.push.delayMs(write.jobId), now: options.now });
    try {
      note(params);
    } catch {
      // Refused as well: the row stays as it is, and the pass meets it again.
    }
  }
}
