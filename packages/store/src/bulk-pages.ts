import type { JobStatus } from '@nudge/core';
import {
  BULK_PAGE_SIZE,
  type BulkCommandGroup,
  type BulkCommandResult,
  type CancelledRunningJob,
} from './bulk-command-types.js';

/** A row a page of a bulk command changed. */
export interface BulkChangedRow {
  readonly id: number;
  readonly kind: string;
  readonly queue: string;
  /** The status the row left. */
  readonly previous: JobStatus;
  /** The version after the change. */
  readonly version: number;
  readonly claimedBy: string | null;
}

/**
 * What one page did: the rows it changed, the cursor after the last row it read, and `done` when
 * no row past that cursor can match (a short page, usually).
 */
export interface BulkPage<C> {
  readonly rows: readonly BulkChangedRow[];
  /** Rows of the page the database refused to change (see `Store.onIsolatedWrite`). @defaultValue 0 */
  readonly isolated?: number;
  readonly next: C;
  readonly done: boolean;
}

/**
 * Runs a bulk command one page at a time: `page(cursor, size)` changes at most `size` rows
 * (≤ {@link BULK_PAGE_SIZE}) past `cursor`, in one statement or transaction, and returns where
 * the next page starts. Stops when a page says it was the last, or once `limit` rows changed.
 * Rows are counted per kind and queue; rows taken from `RUNNING` are kept for their instance.
 */
export async function runBulkPages<C>(
  start: C,
  limit: number | undefined,
  page: (cursor: C, size: number) => Promise<BulkPage<C>>,
): Promise<BulkCommandResult> {
  const groups = new Map<string, { kind: string; queue: string; changed: number }>();
  const running: CancelledRunningJob[] = [];
  let changed = 0;
  let isolated = 0;
  let pages = 0;
  let cursor = start;
  for (;;) {
    const size = Math.min(BULK_PAGE_SIZE, (limit ?? Infinity) - changed);
    if (size <= 0) break;
    const { rows, next, done, isolated: refused = 0 } = await page(cursor, size);
    if (rows.length > 0) pages += 1;
    changed += rows.length;
    isolated += refused;
    for (const row of rows) {
      const key = JSON.stringify([row.kind, row.queue]);
      const group = groups.get(key) ?? { kind: row.kind, queue: row.queue, changed: 0 };
      group.changed += 1;
      groups.set(key, group);
      if (row.previous === 'RUNNING') {
        running.push({ id: row.id, version: row.version, claimedBy: row.claimedBy });
      }
    }
    if (done) break;
    cursor = next;
  }
  const result: BulkCommandGroup[] = [...groups.values()];
  return { changed, isolated, groups: result, running, pages };
}
