// A claim's group whose kinds have no due job reads nothing, however long the backlog of other
// kinds: its candidate first probes the due rows of its kinds (`nudge_jobs_kind_claimable`), and
// without one never walks the claim index. (An instance with a cpu and an async class claims
// both in every pass; the idle one used to read every due row of the other to find none.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { buildSqliteClaim, PG_PLANNER_OPTIONS } from '@nudge/store/statements';
import type { ClaimGroup, Store } from '@nudge/store';
import {
  createMigratedDatabase,
  explainPgClaim,
  rawQuery,
  openStore,
  planNodes,
  rowsRead,
  type TestDatabase,
} from '../helpers/index.js';

const BACKLOG = 20_000;
const GROUPS: ClaimGroup[] = [
  { kinds: ['busy'], limit: 5 },
  { kinds: ['idle', 'also-idle'], limit: 2 },
];

describe('a claim of a group with no due job beside a long backlog of other kinds', () => {
  let pgDb: TestDatabase;
  let sqliteDb: TestDatabase;
  let stores: Store[];

  before(async () => {
    [pgDb, sqliteDb] = await Promise.all([
      createMigratedDatabase('postgres'),
      createMigratedDatabase('sqlite'),
    ]);
    stores = await Promise.all([openStore(pgDb), openStore(sqliteDb)]);
    for (const store of stores) {
      for (let start = 0; start < BACKLOG; start += 5000) {
        await store.enqueueMany(Array.from({ length: 5000 }, () => ({ kind: 'busy' })));
      }
    }
    await Promise.all([rawQuery(pgDb, 'ANALYZE nudge_jobs'), rawQuery(sqliteDb, 'ANALYZE')]);
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all([pgDb.drop(), sqliteDb.drop()]);
  });

  // With the store's own planner settings, and with the server's (as behind a transaction pooler).
  for (const options of [PG_PLANNER_OPTIONS, undefined]) {
    const setting = options === undefined ? "the server's planner settings" : "the store's planner settings";
    it(`postgres, ${setting}: the idle group reads nothing: the claim reads its 5 rows and a probe per group`, async () => {
      const plan = await explainPgClaim(pgDb.url, GROUPS, options === undefined ? {} : { options });
      // Every row any scan of the jobs table read, kept or filtered out (the UPDATE's primary-key
      // lookups aside).
      const reads = planNodes(plan)
        .filter((n) => n['Relation Name'] === 'nudge_jobs' && n['Node Type'] !== 'ModifyTable')
        .filter((n) => n['Index Name'] !== 'nudge_jobs_pkey')
        .map((n) => [n['Index Name'] ?? n['Node Type'], rowsRead(n)] as const);
      const total = reads.reduce((sum, [, rows]) => sum + rows, 0);
      assert.ok(total <= 5 + 2, `5 rows claimed and a probe per group, not a walk: ${JSON.stringify(reads)}`);
      assert.ok(
        planNodes(plan).every((n) => !(n['Relation Name'] === 'nudge_jobs' && n['Node Type'] === 'Seq Scan')),
        'no sequential scan of the jobs table',
      );
    });
  }

  it('sqlite: the idle group probes its kinds first, in its LIMIT, and sorts nothing', () => {
    const conn = new Database(sqliteDb.url.slice('sqlite:'.length), { readonly: true });
    try {
      const claim = buildSqliteClaim({ workerId: 'w', leaseMs: 60_000, groups: [] }, GROUPS);
      const details = conn
        .prepare<Record<string, unknown>, { detail: string }>(`EXPLAIN QUERY PLAN ${claim.text}`)
        .all(claim.params)
        .map((row) => row.detail);
      assert.equal(
        details.filter((d) => d.includes('USING COVERING INDEX nudge_jobs_kind_claimable')).length,
        2,
        `a probe of the kinds per group: ${details.join(' | ')}`,
      );
      assert.ok(
        details.every((d) => !d.includes('TEMP B-TREE')),
        `no sort: ${details.join(' | ')}`,
      );
      assert.ok(claim.text.includes('LIMIT CASE WHEN EXISTS'), 'the probe decides the LIMIT');
    } finally {
      conn.close();
    }
  });

  for (const [i, dialect] of (['postgres', 'sqlite'] as const).entries()) {
    it(`${dialect}: the claim still takes the busy group's jobs, and an idle kind's job once one is due`, async () => {
      const store = stores[i] as Store;
      const first = await store.claim({ workerId: 'w', leaseMs: 60_000, groups: GROUPS });
      assert.deepEqual(
        first.map((job) => job.kind),
        ['busy', 'busy', 'busy', 'busy', 'busy'],
      );
      await store.enqueue({ kind: 'also-idle' });
      const second = await store.claim({ workerId: 'w', leaseMs: 60_000, groups: GROUPS });
      assert.deepEqual(second.map((job) => job.kind).sort(), [
        'also-idle',
        'busy',
        'busy',
        'busy',
        'busy',
        'busy',
      ]);
    });
  }
});
