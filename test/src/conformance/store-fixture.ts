import { afterEach, beforeEach, describe } from 'node:test';
import type { ClaimedJob, JobLease, Store } from '@nudge/store';
import { DIALECTS, createMigratedDatabase, openStore, type TestDatabase } from '../helpers/index.js';

/** Lease the conformance cases claim with, in ms. */
export const LEASE_MS = 10_000;

/** Kinds the cases enqueue; `claim` claims any of them unless told otherwise. */
export const KINDS = [
  'k',
  'ok',
  'retry',
  'last',
  'permanent',
  'again',
  'done',
  'alive',
  'a',
  'b',
  'c',
  'echo',
];

/** `date` shifted by `ms`. */
export const later = (date: Date, ms: number): Date => new Date(date.getTime() + ms);

/** The lease of a claimed job. */
export const leaseOf = (job: JobLease): JobLease => ({ id: job.id, version: job.version });

/** What every conformance case gets: a migrated store on a fresh database of one dialect. */
export interface StoreCase {
  readonly db: TestDatabase;
  readonly store: Store;
  /** Claims up to `limit` jobs of `kinds` (default {@link KINDS}) for `workerId` (default `w1`). */
  claim(
    limit: number,
    options?: { now?: Date; workerId?: string; kinds?: readonly string[] },
  ): Promise<ClaimedJob[]>;
}

/**
 * Declares `title` once per dialect; `body` registers its cases against the {@link StoreCase},
 * whose store is fresh for every case.
 */
export function describeStore(title: string, body: (t: StoreCase) => void): void {
  for (const dialect of DIALECTS) {
    describe(`store conformance, ${title}: ${dialect}`, () => {
      let db: TestDatabase | undefined;
      let store: Store | undefined;
      const t: StoreCase = {
        get db() {
          if (!db) throw new Error('no database outside a case');
          return db;
        },
        get store() {
          if (!store) throw new Error('no store outside a case');
          return store;
        },
        claim: (limit, options = {}) =>
          t.store.claim({
            workerId: options.workerId ?? 'w1',
            leaseMs: LEASE_MS,
            groups: [{ kinds: options.kinds ?? KINDS, limit }],
            ...(options.now ? { now: options.now } : {}),
          }),
      };
      beforeEach(async () => {
        db = await createMigratedDatabase(dialect);
        store = await openStore(db);
      });
      afterEach(async () => {
        await store?.close();
        await db?.drop();
        store = undefined;
        db = undefined;
      });
      body(t);
    });
  }
}
