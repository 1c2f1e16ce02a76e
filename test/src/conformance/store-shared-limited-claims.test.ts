// Claims of a limited queue with room to spare run side by side on PostgreSQL (migrations 0014
// and 0018: up to SHARE_SLOTS at once, each taking at most the queue's share size). However many run
// at once, the queue's running jobs, its starts in a window and the running jobs per key stop
// exactly at the limits. No job finishes here, so any overshoot stays visible at the end.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { QueueLimitsPatch, Store } from '@nudge/store';
import { buildPgClaim } from '@nudge/store/statements';
import { createMigratedDatabase, openStore, rawQuery, type TestDatabase } from '../helpers/index.js';
import { LEASE_MS, describeStore } from './store-fixture.js';

const KEYS = 20;

/** Jobs of queue `api`, kind `k`, keyed `key-0` … `key-19` in turn when `keyed`. */
const jobs = (count: number, keyed: boolean) =>
  Array.from({ length: count }, (_, i) => ({
    kind: 'k',
    queue: 'api',
    ...(keyed ? { concurrencyKey: `key-${i % KEYS}` } : {}),
  }));

/** Runs `claim` in `lanes` loops at once, each until three claims in a row take nothing. */
async function drainSideBySide(lanes: number, claim: (lane: number) => Promise<number>): Promise<void> {
  const drain = async (lane: number) => {
    for (let empty = 0; empty < 3;) empty = (await claim(lane)) === 0 ? empty + 1 : 0;
  };
  await Promise.all(Array.from({ length: lanes }, (_, lane) => drain(lane)));
  // Then one lane alone: on a loaded machine a lane can meet its neighbours' locks three times in
  // a row and stop while room is left. Alone it takes what is left, and no more.
  await drain(0);
}

async function runningPerKey(db: TestDatabase): Promise<{ total: number; most: number }> {
  const rows = await rawQuery<{ n: number | string }>(
    db,
    `SELECT count(*) AS n FROM nudge_jobs WHERE status = 'RUNNING' GROUP BY concurrency_key`,
  );
  const counts = rows.map((row) => Number(row.n));
  return { total: counts.reduce((sum, n) => sum + n, 0), most: Math.max(0, ...counts) };
}

const CASES: Array<{ name: string; limits: QueueLimitsPatch; keyed: boolean; expect: number }> = [
  { name: 'concurrency 60', limits: { concurrency: 60 }, keyed: false, expect: 60 },
  {
    name: 'a rate of 50 an hour',
    limits: { rateLimit: { limit: 50, intervalMs: 3_600_000 } },
    keyed: false,
    expect: 50,
  },
  { name: 'keyConcurrency 1', limits: { keyConcurrency: 1 }, keyed: true, expect: KEYS },
];

describeStore('claims of a limited queue side by side', (t) => {
  for (const c of CASES) {
    it(`six stores claiming at once stop exactly at the limit (${c.name})`, async () => {
      await t.store.setQueueLimits('api', c.limits);
      await t.store.enqueueMany(jobs(300, c.keyed));
      const stores: Store[] = [
        t.store,
        ...(await Promise.all(Array.from({ length: 5 }, () => openStore(t.db)))),
      ];
      try {
        await drainSideBySide(stores.length * 3, async (lane) => {
          const store = stores[lane % stores.length] as Store;
          const claimed = await store.claim({
            workerId: `w${lane}`,
            leaseMs: LEASE_MS,
            groups: [{ kinds: ['k'], limit: 4 }],
          });
          return claimed.length;
        });
      } finally {
        await Promise.all(stores.slice(1).map((store) => store.close()));
      }
      const { total, most } = await runningPerKey(t.db);
      assert.equal(total, c.expect, 'running jobs at the end');
      if (c.keyed) assert.equal(most, 1, 'running jobs of the busiest key');
    });
  }
});

describe('PostgreSQL claims that ask to share a limited queue with little room', () => {
  let db: TestDatabase;
  let store: Store;
  before(async () => {
    db = await createMigratedDatabase('postgres');
    store = await openStore(db);
  });
  after(async () => {
    await store.close();
    await db.drop();
  });

  // Every claim asks to share first, even when the room is smaller than SHARE_SLOTS times what it
  // takes: only the statement's own check stands between the claims and an overshoot.
  for (const c of [
    { name: 'concurrency 10', limits: { concurrency: 10 }, keyed: false, expect: 10 },
    {
      name: 'a rate of 7 an hour',
      limits: { rateLimit: { limit: 7, intervalMs: 3_600_000 } },
      keyed: false,
      expect: 7,
    },
    { name: 'keyConcurrency 1', limits: { keyConcurrency: 1 }, keyed: true, expect: KEYS },
  ]) {
    it(`eight connections at once stop exactly at the limit (${c.name})`, async () => {
      await rawQuery(db, 'DELETE FROM nudge_jobs');
      await rawQuery(db, 'DELETE FROM nudge_queues');
      await store.setQueueLimits('api', c.limits);
      await store.enqueueMany(jobs(200, c.keyed));
      const clients = Array.from({ length: 8 }, () => new pg.Client({ connectionString: db.url }));
      await Promise.all(clients.map((client) => client.connect()));
      try {
        const statement = (share: boolean) =>
          buildPgClaim(
            { workerId: 'w', leaseMs: LEASE_MS, groups: [] },
            [{ kinds: ['k'], limit: 4 }],
            [{ name: 'api', share }],
          );
        const shared = statement(true);
        const alone = statement(false);
        await drainSideBySide(clients.length, async (lane) => {
          const client = clients[lane] as pg.Client;
          const { rows } = await client.query<{ jobs: string; frees: string | null }>(
            shared.text,
            shared.values,
          );
          const taken = (JSON.parse(rows[0]?.jobs ?? '[]') as unknown[]).length;
          // As the store does: a shared claim that found too little room to prove (room 0) is
          // asked again for the queue alone, which counts the running jobs and takes the rest.
          const frees = JSON.parse(rows[0]?.frees ?? '[]') as Array<[string, number, boolean, number]>;
          if (!frees.some(([, , wasShared, room]) => wasShared && room === 0)) return taken;
          const again = await client.query<{ jobs: string }>(alone.text, alone.values);
          return taken + (JSON.parse(again.rows[0]?.jobs ?? '[]') as unknown[]).length;
        });
      } finally {
        await Promise.all(clients.map((client) => client.end()));
      }
      const { total, most } = await runningPerKey(db);
      assert.equal(total, c.expect, 'running jobs at the end');
      if (c.keyed) assert.equal(most, 1, 'running jobs of the busiest key');
    });
  }
});
