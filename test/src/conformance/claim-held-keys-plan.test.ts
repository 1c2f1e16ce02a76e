// A busy key's held-back jobs cost the claims of other queues and keys nothing. Queue `busy` has a
// key limit of 1, one job of key `one` running and HELD more of that key due (first in claim
// order), then two jobs of each of three other keys and one without a key; queue `other` has due
// jobs after them. A claim once walked every held row, twice on PostgreSQL (the queue's candidate
// asked each row's key for room, and the other queues' candidate passed them on its way): now it
// reads a window of rows and then finds its rows per key and per queue. PostgreSQL proves it with
// EXPLAIN (ANALYZE, BUFFERS) at two sizes of the backlog; SQLite with the plan of the statement
// it runs past a full window. Both dialects take the right jobs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type { Store } from '@nudge/store';
import { buildPgClaim, buildSqliteClaim, PG_PLANNER_OPTIONS } from '@nudge/store/statements';
import {
  createMigratedDatabase,
  openStore,
  rawQuery,
  type TestDatabase,
  planNodes,
  rowsRead,
} from '../helpers/index.js';
import type { PlanNode } from '../helpers/index.js';
import pg from 'pg';

const SMALL = 1_000;
const LARGE = 20_000;
const GROUPS = [{ kinds: ['k'], limit: 10 }];

/** Fills the database as described above with `held` held-back jobs of key `one`. */
async function fill(db: TestDatabase, store: Store, held: number): Promise<void> {
  await store.setQueueLimits('busy', { keyConcurrency: 1 });
  await store.enqueue({ kind: 'k', queue: 'busy', concurrencyKey: 'one' });
  const [running] = await store.claim({ workerId: 'busy', leaseMs: 3_600_000, groups: GROUPS });
  assert.equal(running?.queue, 'busy');
  for (let start = 0; start < held; start += 5000) {
    const n = Math.min(5000, held - start);
    await store.enqueueMany(
      Array.from({ length: n }, () => ({ kind: 'k', queue: 'busy', concurrencyKey: 'one' })),
    );
  }
  await store.enqueueMany(
    Array.from({ length: 6 }, (_, i) => ({ kind: 'k', queue: 'busy', concurrencyKey: `x${i % 3}` })),
  );
  await store.enqueue({ kind: 'k', queue: 'busy' });
  await store.enqueueMany(Array.from({ length: 20 }, () => ({ kind: 'k', queue: 'other' })));
  await rawQuery(db, 'ANALYZE');
}

/** The PostgreSQL claim of GROUPS, locking `busy`, under EXPLAIN (ANALYZE, BUFFERS), rolled back. */
async function explainLimitedClaim(url: string): Promise<{ plan: PlanNode; buffers: number }> {
  const client = new pg.Client({ connectionString: url, options: PG_PLANNER_OPTIONS });
  await client.connect();
  try {
    await client.query('BEGIN');
    const claim = buildPgClaim({ workerId: 'w1', leaseMs: 60_000, groups: [] }, GROUPS, [
      { name: 'busy', share: false },
    ]);
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode & Record<string, number> }] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${claim.text}`,
      claim.values,
    );
    await client.query('ROLLBACK');
    const plan = rows[0]?.['QUERY PLAN'][0].Plan;
    if (!plan) throw new Error('EXPLAIN answered no plan');
    return { plan, buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0) };
  } finally {
    await client.end();
  }
}

const jobsRead = (plan: PlanNode): number =>
  planNodes(plan)
    .filter((n) => n['Relation Name'] === 'nudge_jobs' && n['Node Type'] !== 'ModifyTable')
    .reduce((sum, n) => sum + rowsRead(n), 0);

describe('a claim beside a busy key held back by its limit', () => {
  const dbs: TestDatabase[] = [];
  const stores: Store[] = [];
  // [postgres small, postgres large, sqlite large]
  before(async () => {
    dbs.push(
      ...(await Promise.all([
        createMigratedDatabase('postgres'),
        createMigratedDatabase('postgres'),
        createMigratedDatabase('sqlite'),
      ])),
    );
    stores.push(...(await Promise.all(dbs.map((db) => openStore(db)))));
    await Promise.all([SMALL, LARGE, LARGE].map((held, i) => fill(dbs[i]!, stores[i]!, held)));
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all(dbs.map((db) => db.drop()));
  });

  it(`postgres: EXPLAIN ANALYZE reads as many rows with ${LARGE.toLocaleString('en')} held-back jobs as with ${SMALL.toLocaleString('en')}`, async () => {
    const small = await explainLimitedClaim(dbs[0]!.url);
    const large = await explainLimitedClaim(dbs[1]!.url);
    const [readSmall, readLarge] = [jobsRead(small.plan), jobsRead(large.plan)];
    assert.ok(readLarge < SMALL, `${readLarge} rows of nudge_jobs read beside ${LARGE} held-back jobs`);
    assert.equal(readLarge, readSmall, 'rows of nudge_jobs read at both sizes');
    // A deeper index may cost a page per probe.
    assert.ok(
      large.buffers <= small.buffers * 1.1 + 10,
      `${large.buffers} shared buffers against ${small.buffers}`,
    );
    assert.ok(
      planNodes(large.plan).every(
        (n) => !(n['Relation Name'] === 'nudge_jobs' && n['Node Type'] === 'Seq Scan'),
      ),
      'no sequential scan of the jobs table',
    );
  });

  it('sqlite: past a full window, the claim reads the busy queue per key and the other queues per queue', () => {
    const conn = new Database(dbs[2]!.url.slice('sqlite:'.length), { readonly: true });
    try {
      const claim = buildSqliteClaim(
        { workerId: 'w', leaseMs: 60_000, groups: [] },
        GROUPS,
        [{ name: 'busy', room: 2147483647, keyConcurrency: 1, keys: { full: '["one"]', byKey: true } }],
        true,
        true,
      );
      const details = conn
        .prepare<Record<string, unknown>, { detail: string }>(`EXPLAIN QUERY PLAN ${claim.text}`)
        .all(claim.params)
        .map((row) => row.detail);
      for (const index of [
        'nudge_jobs_key_claimable',
        'nudge_jobs_keyless_claimable',
        'nudge_jobs_queue_claimable',
      ])
        assert.ok(
          details.some((d) => d.includes(index)),
          `reads through ${index}: ${details.join(' | ')}`,
        );
      assert.ok(
        details.every(
          (d) => !d.includes('USING INDEX nudge_jobs_claimable') && !/^SCAN nudge_jobs\b/.test(d),
        ),
        `no walk of every due row: ${details.join(' | ')}`,
      );
    } finally {
      conn.close();
    }
  });

  for (const i of [1, 2]) {
    it(`${i === 1 ? 'postgres' : 'sqlite'}: the claim takes a row of each other key, the row without a key and the other queue's`, async () => {
      const jobs = await stores[i]!.claim({ workerId: 'w', leaseMs: 60_000, groups: GROUPS });
      const busy = jobs.filter((job) => job.queue === 'busy');
      assert.equal(busy.length, 4, `jobs of busy: ${JSON.stringify(jobs)}`);
      assert.equal(jobs.length, 10);
      const keys = await rawQuery<{ k: string | null }>(
        dbs[i]!,
        `SELECT concurrency_key AS k FROM nudge_jobs WHERE status = 'RUNNING' AND queue = 'busy' ORDER BY concurrency_key IS NULL, concurrency_key`,
      );
      assert.deepEqual(
        keys.map((row) => row.k),
        ['one', 'x0', 'x1', 'x2', null],
      );
    });
  }
});
