// GET /stats counts the whole jobs table (1.6–2.0 s at 1,000,000 rows). Once a count is slow,
// pages come from one whole count for a while instead of a count per request. A real store on
// each dialect; its counts are made slow on a clock the test moves (not in wall time).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStore, type NamePage, type Store, type StoreStats } from '@nudge/store';
import { DIALECTS, createMigratedDatabase, type TestDatabase } from '@nudge/test-databases';
import { STATS_REUSE_FACTOR, STATS_REUSE_FROM_MS, StatsSnapshots } from '@nudge/http';

/** Kinds whose UTF-16 order differs from the code-point order the database sorts by. */
const KINDS = ['a', 'b', 'é', '\u{FF5A}', '\u{1F600}', 'z'];

for (const dialect of DIALECTS) {
  describe(`stats snapshots: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    let nowMs = 0;
    let countMs = 0;
    let counts = 0;
    /** The store, whose counts take `countMs` on the test's clock. */
    let slow: Store;
    before(async () => {
      db = await createMigratedDatabase(dialect);
      store = createStore(db.url);
      await store.migrate();
      slow = new Proxy(store, {
        get(target, name, receiver) {
          if (name !== 'stats') return Reflect.get(target, name, receiver) as unknown;
          return async (input: Parameters<Store['stats']>[0]) => {
            counts += 1;
            const stats = await target.stats(input);
            nowMs += countMs;
            return stats;
          };
        },
      });
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    const all: NamePage = { limit: 500 };
    const pending = (stats: StoreStats) => stats.byStatus.PENDING;

    it('counts afresh at every request while counting is fast', async () => {
      countMs = STATS_REUSE_FROM_MS - 1;
      const snapshots = new StatsSnapshots(slow, 60_000, () => nowMs);
      const before = counts;
      assert.equal(pending(await snapshots.page(all, all)), 0);
      await store.enqueue({ kind: 'k' });
      assert.equal(pending(await snapshots.page(all, all)), 1);
      assert.equal(counts - before, 2, 'a count per request');
    });

    it('once a count is slow, answers pages of one whole count, in the database order', async () => {
      await store.enqueueMany(KINDS.map((kind) => ({ kind })));
      countMs = 200;
      const snapshots = new StatsSnapshots(slow, 60_000, () => nowMs);
      await snapshots.page(all, { limit: 0 });
      const before = counts;
      // Walks the kinds two at a time, as a client with cursors does; compares with the store's pages.
      let after: string | undefined;
      const seen: string[] = [];
      for (;;) {
        const page: NamePage = { limit: 2, ...(after !== undefined && { after }) };
        const cut = await snapshots.page(page, { limit: 0 });
        const direct = await store.stats({ instanceLiveWithinMs: 60_000, kinds: page, queues: { limit: 0 } });
        assert.deepEqual(Object.keys(cut.byKind), Object.keys(direct.byKind), `the page after ${after}`);
        assert.deepEqual(cut.byKind, direct.byKind);
        assert.deepEqual(cut.byQueue, {});
        seen.push(...Object.keys(cut.byKind));
        if (Object.keys(cut.byKind).length < 2) break;
        after = Object.keys(cut.byKind).at(-1);
      }
      assert.deepEqual(seen, [...new Set(seen)], 'no kind twice');
      assert.equal(seen.length, KINDS.length + 1, 'every kind, `k` too');
      assert.equal(counts - before, 1, 'one whole count for every page');
    });

    it('answers the same count for ten times its counting time, then once more while it counts again', async () => {
      countMs = 200;
      const snapshots = new StatsSnapshots(slow, 60_000, () => nowMs);
      await snapshots.page(all, all);
      const first = await snapshots.page(all, all);
      const before = counts;
      await store.enqueue({ kind: 'k' });
      nowMs += STATS_REUSE_FACTOR * countMs - 1;
      assert.equal(pending(await snapshots.page(all, all)), pending(first), 'the same count');
      assert.equal(counts, before, 'no count');
      nowMs += 2;
      const stale = await snapshots.page(all, all);
      assert.equal(pending(stale), pending(first), 'answered as it was, while the next count runs');
      assert.equal(counts, before + 1, 'one count started');
      // The new count lands in its own time; until then the old one is answered.
      let latest = stale;
      for (let tries = 0; pending(latest) === pending(first) && tries < 500; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        latest = await snapshots.page(all, all);
      }
      assert.equal(pending(latest), pending(first) + 1, 'the new count');
      assert.equal(counts, before + 1, 'still one count');
      nowMs += 2 * STATS_REUSE_FACTOR * countMs + 1;
      await store.enqueue({ kind: 'k' });
      assert.equal(
        pending(await snapshots.page(all, all)),
        pending(first) + 2,
        'a count too old to answer is waited for',
      );
    });
  });
}
