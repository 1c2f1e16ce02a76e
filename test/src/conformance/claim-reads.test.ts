// A claim reads only runnable rows: 20,000 jobs scheduled for tomorrow (with a better priority
// than the due ones) are never read. PostgreSQL proves it with EXPLAIN (ANALYZE, BUFFERS) of the
// claim statement itself; SQLite with its query plan and the contents of the index it uses.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { buildSqliteClaim, PG_PLANNER_OPTIONS } from '@nudge/store/statements';
import type { Store } from '@nudge/store';
import {
  createMigratedDatabase,
  explainPgClaim,
  openStore,
  rawQuery,
  type TestDatabase,
  planNodes,
  rowsRead,
} from '../helpers/index.js';

const SCHEDULED = 20_000;
const DUE = 10;
const LIMIT = 5;

async function fillQueue(db: TestDatabase, store: Store): Promise<void> {
  const tomorrow = new Date((await store.now()).getTime() + 86_400_000);
  for (let start = 0; start < SCHEDULED; start += 5000) {
    await store.enqueueMany(
      Array.from({ length: 5000 }, () => ({ kind: 'k', priority: -10, runAt: tomorrow })),
    );
  }
  await store.enqueueMany(Array.from({ length: DUE }, () => ({ kind: 'k' })));
  const counts = await store.countByStatus();
  assert.equal(counts.SCHEDULED, SCHEDULED);
  assert.equal(counts.PENDING, DUE);
  await rawQuery(db, 'ANALYZE');
}

describe('a claim reads no more rows than it returns', () => {
  let pgDb: TestDatabase;
  let sqliteDb: TestDatabase;
  let pgStore: Store;
  let sqliteStore: Store;

  before(async () => {
    [pgDb, sqliteDb] = await Promise.all([
      createMigratedDatabase('postgres'),
      createMigratedDatabase('sqlite'),
    ]);
    [pgStore, sqliteStore] = await Promise.all([openStore(pgDb), openStore(sqliteDb)]);
    await Promise.all([fillQueue(pgDb, pgStore), fillQueue(sqliteDb, sqliteStore)]);
  });
  after(async () => {
    await Promise.all([pgStore.close(), sqliteStore.close()]);
    await Promise.all([pgDb.drop(), sqliteDb.drop()]);
  });

  // The store's connections plan with sorts and bitmap scans priced out (PG_PLANNER_OPTIONS); behind
  // a transaction pooler they plan with the server's settings, which may read the due rows through
  // the index of due rows per kind and sort them: never a scheduled row either way.
  for (const options of [PG_PLANNER_OPTIONS, undefined]) {
    const exact = options !== undefined;
    it(`postgres: EXPLAIN ANALYZE shows the claim read ${exact ? "exactly the rows claimed (the store's planner settings)" : "only due rows (the server's planner settings)"}`, async () => {
      const plan = await explainPgClaim(pgDb.url, [{ kinds: ['k'], limit: LIMIT }], {
        ...(exact ? { options } : {}),
        buffers: true,
      });
      const scans = planNodes(plan).filter(
        (n) =>
          n['Relation Name'] === 'nudge_jobs' &&
          n['Node Type'] !== 'ModifyTable' &&
          n['Index Name'] !== 'nudge_jobs_pkey',
      );
      assert.ok(
        scans.every((n) => n['Node Type'] !== 'Seq Scan'),
        `no sequential scan of the jobs table: ${scans.map((n) => n['Node Type']).join(', ')}`,
      );
      assert.ok(
        scans.every(
          (n) =>
            n['Index Name'] === 'nudge_jobs_claimable' || n['Index Name'] === 'nudge_jobs_kind_claimable',
        ),
        `every read goes through an index of due rows only: ${JSON.stringify(scans.map((n) => n['Index Name']))}`,
      );
      if (exact) {
        const claimScan = scans.find((n) => n['Index Name'] === 'nudge_jobs_claimable');
        assert.ok(claimScan, `the claim reads through nudge_jobs_claimable: ${JSON.stringify(scans)}`);
        assert.equal(claimScan['Actual Rows'], LIMIT, 'index entries read = rows claimed');
        assert.equal(claimScan['Rows Removed by Filter'] ?? 0, 0, 'no row read and thrown away');
      } else {
        // The due rows, and one more for the probe of the kind's due rows.
        const total = scans.reduce((sum, n) => sum + rowsRead(n), 0);
        assert.ok(
          total <= DUE + 1,
          `${total} rows read: ${JSON.stringify(scans.map((n) => [n['Index Name'], rowsRead(n)]))}`,
        );
      }
    });
  }

  it('sqlite: the claim reads through an index that holds only the due rows', async () => {
    const conn = new Database(sqliteDb.url.slice('sqlite:'.length), { readonly: true });
    let details: string[];
    try {
      const claim = buildSqliteClaim({ workerId: 'w', leaseMs: 60_000, groups: [] }, [
        { kinds: ['k'], limit: LIMIT },
      ]);
      const plan = conn
        .prepare<Record<string, unknown>, { detail: string }>(`EXPLAIN QUERY PLAN ${claim.text}`)
        .all(claim.params);
      details = plan.map((row) => row.detail);
    } finally {
      conn.close();
    }
    assert.ok(
      details.some((d) => d.includes('USING INDEX nudge_jobs_claimable')),
      `plan uses the claim index: ${details.join(' | ')}`,
    );
    assert.ok(
      details.every((d) => !/^SCAN nudge_jobs$/.test(d)),
      `no full scan of the jobs table: ${details.join(' | ')}`,
    );
    const [inIndex] = await rawQuery<{ n: number }>(
      sqliteDb,
      `SELECT count(*) AS n FROM nudge_jobs INDEXED BY nudge_jobs_claimable WHERE status = 'PENDING'`,
    );
    assert.equal(inIndex?.n, DUE, 'the claim index holds the due rows and none of the scheduled ones');
  });

  for (const dialect of ['postgres', 'sqlite'] as const) {
    it(`${dialect}: the claim returns the due jobs, not the better-priority scheduled ones`, async () => {
      const store = dialect === 'postgres' ? pgStore : sqliteStore;
      const claimed = await store.claim({
        workerId: 'w',
        leaseMs: 60_000,
        groups: [{ kinds: ['k'], limit: LIMIT }],
      });
      assert.equal(claimed.length, LIMIT);
      for (const job of claimed) assert.equal((await store.getJob(job.id))?.priority, 0);
    });
  }
});
