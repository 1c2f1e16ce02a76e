// Claims that share a limited queue on PostgreSQL and want different amounts (migration 0018).
// Each claim runs in a transaction kept open, so what it takes stays invisible to the others for
// as long as the case decides: the order of locks and commits is fixed, not left to chance. A
// shared claim once compared the room it saw with its own want only, which is safe only when every
// sharer wants the same: the cases below overshot a concurrency of 41 to 50 and 161 to 188, and a
// rate of 40 an hour to 49 starts. No job finishes here, so every start is still RUNNING.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { QueueLimitsPatch, Store } from '@nudge/store';
import { buildPgClaim } from '@nudge/store/statements';
import { createMigratedDatabase, openStore, rawQuery, type TestDatabase } from '../helpers/index.js';
import { LEASE_MS } from './store-fixture.js';

/** Claims up to `want` jobs of queue `api` on `client`, asking to share it (or not); answers how many. */
async function claim(client: pg.Client, want: number, share = true): Promise<number> {
  const statement = buildPgClaim(
    { workerId: 'w', leaseMs: LEASE_MS, groups: [] },
    [{ kinds: ['k'], limit: want }],
    [{ name: 'api', share }],
  );
  const { rows } = await client.query<{ jobs: string }>(statement.text, statement.values);
  return (JSON.parse(rows[0]?.jobs ?? '[]') as unknown[]).length;
}

/** Opens a transaction on `client` and claims in it; the transaction stays open. */
async function heldClaim(client: pg.Client, want: number): Promise<number> {
  await client.query('BEGIN');
  return claim(client, want);
}

describe('PostgreSQL claims of different sizes that share a limited queue', () => {
  let db: TestDatabase;
  let store: Store;
  let clients: pg.Client[];
  before(async () => {
    db = await createMigratedDatabase('postgres');
    store = await openStore(db);
  });
  after(async () => {
    await store.close();
    await db.drop();
  });

  /** A fresh queue `api` with `limits` and 300 jobs; with a concurrency limit, one claim alone counts the running jobs (and takes 1). */
  async function prepare(limits: QueueLimitsPatch): Promise<number> {
    await rawQuery(db, 'DELETE FROM nudge_jobs');
    await rawQuery(db, 'DELETE FROM nudge_queues');
    await rawQuery(db, 'DELETE FROM nudge_rate_starts');
    await rawQuery(db, 'DELETE FROM nudge_queue_slots');
    await store.setQueueLimits('api', limits);
    await store.enqueueMany(Array.from({ length: 300 }, () => ({ kind: 'k', queue: 'api' })));
    clients = Array.from({ length: 5 }, () => new pg.Client({ connectionString: db.url }));
    await Promise.all(clients.map((client) => client.connect()));
    // A shared claim proves its room from the count a claim alone left (none yet: it would take nothing).
    return limits.concurrency === undefined ? 0 : claim(clients[4] as pg.Client, 1, false);
  }

  async function running(): Promise<number> {
    const [row] = await rawQuery<{ n: number | string }>(
      db,
      `SELECT count(*) AS n FROM nudge_jobs WHERE status = 'RUNNING'`,
    );
    return Number(row?.n);
  }

  const client = (i: number): pg.Client => clients[i] as pg.Client;
  const endAll = async (): Promise<void> => {
    await Promise.all(clients.map((c) => c.end()));
  };

  for (const c of [
    { name: 'concurrency 41', limits: { concurrency: 41 }, limit: 41 },
    { name: 'a rate of 40 an hour', limits: { rateLimit: { limit: 40, intervalMs: 3_600_000 } }, limit: 40 },
  ]) {
    it(`four claims of 10, one commits, then claims of 2 and 7: at most the limit (${c.name})`, async () => {
      const first = await prepare(c.limits);
      try {
        // Each sees the whole room (the others' starts are not committed) and asks for 10.
        for (let i = 0; i < 4; i += 1) await heldClaim(client(i), 10);
        await client(0).query('COMMIT');
        // The committed claim's slot is free again; the three others are still in flight.
        await heldClaim(client(0), 2);
        await client(0).query('COMMIT');
        await heldClaim(client(0), 7);
        await Promise.all(clients.slice(0, 4).map((held) => held.query('COMMIT')));
      } finally {
        await endAll();
      }
      const total = await running();
      assert.ok(
        total <= c.limit,
        `${total} jobs started against a limit of ${c.limit} (${first} by the first claim)`,
      );
    });
  }

  for (const c of [
    { name: 'concurrency 161', limits: { concurrency: 161 }, limit: 161 },
    {
      name: 'a rate of 160 an hour',
      limits: { rateLimit: { limit: 160, intervalMs: 3_600_000 } },
      limit: 160,
    },
  ]) {
    it(`three claims held open while claims that want less and less pass through the fourth slot: at most the limit (${c.name})`, async () => {
      await prepare(c.limits);
      const held: number[] = [];
      try {
        // Claims of 10 share while the room has space to spare (the share size is 161 / 16 = 10).
        for (let i = 0; i < 3; i += 1) held.push(await heldClaim(client(i), 10));
        for (const want of [...Array.from({ length: 13 }, () => 10), 7, 5, 4, 3, 2, 2, 1, 1, 1, 1])
          await claim(client(3), want);
        await Promise.all(clients.slice(0, 3).map((c) => c.query('COMMIT')));
      } finally {
        await endAll();
      }
      assert.deepEqual(held, [10, 10, 10], 'the held claims shared the queue');
      const total = await running();
      assert.ok(total <= c.limit, `${total} jobs started against a limit of ${c.limit}`);
      // Nothing is left on the table: the claims stop exactly at the limit.
      assert.equal(total, c.limit, 'jobs started');
    });
  }
});
