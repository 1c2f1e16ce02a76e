import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PostgresStore, type EnqueuedJob } from '@nudge/store';
import { waitUntil } from '../helpers/index.js';
import { describeStore } from './store-fixture.js';

const PRODUCER = fileURLToPath(new URL('../fixtures/enqueue-once.js', import.meta.url));
const PRODUCERS = 20;

describeStore('idempotency keys', (t) => {
  const total = async (): Promise<number> =>
    Object.values(await t.store.countByStatus()).reduce((sum, n) => sum + n, 0);

  it('a repeated kind and key returns the existing job and writes nothing; keys are per kind', async () => {
    const first = await t.store.enqueue({ kind: 'k', payload: { n: 1 }, idempotencyKey: 'order-42' });
    assert.equal(first.created, true);
    assert.equal(first.idempotencyKey, 'order-42');
    const again = await t.store.enqueue({ kind: 'k', payload: { n: 2 }, idempotencyKey: 'order-42' });
    assert.equal(again.created, false);
    assert.equal(again.id, first.id);
    assert.deepEqual(again.payload, { n: 1 }, 'the existing job, unchanged');
    const otherKind = await t.store.enqueue({ kind: 'other', idempotencyKey: 'order-42' });
    assert.equal(otherKind.created, true);
    const unkeyed = await Promise.all([t.store.enqueue({ kind: 'k' }), t.store.enqueue({ kind: 'k' })]);
    assert.deepEqual(
      unkeyed.map((j) => j.created),
      [true, true],
    );
    assert.equal(await total(), 4);
  });

  it('a batch returns existing and repeated keys in input order and inserts each new key once', async () => {
    const existing = await t.store.enqueue({ kind: 'k', idempotencyKey: 'old' });
    const jobs = await t.store.enqueueMany([
      { kind: 'k', idempotencyKey: 'new' },
      { kind: 'k' },
      { kind: 'k', idempotencyKey: 'old' },
      { kind: 'k', idempotencyKey: 'new' },
      { kind: 'other', idempotencyKey: 'new' },
    ]);
    assert.deepEqual(
      jobs.map((j) => j.created),
      [true, true, false, false, true],
    );
    assert.equal(jobs[2]?.id, existing.id);
    assert.equal(jobs[3]?.id, jobs[0]?.id);
    assert.equal(await total(), 4);
  });

  it('enqueueAndClaim never claims a job whose key existed', async () => {
    const existing = await t.store.enqueue({ kind: 'k', idempotencyKey: 'once' });
    const result = await t.store.enqueueAndClaim(
      { kind: 'k', idempotencyKey: 'once' },
      { workerId: 'self', leaseMs: 10_000, kinds: ['other'] },
    );
    assert.equal(result.created, false);
    assert.equal(result.id, existing.id);
    assert.equal(result.status, 'PENDING');
    assert.equal((await t.store.getJob(existing.id))?.claimedBy, null);
    assert.equal(await total(), 1);
  });

  it(`${PRODUCERS} concurrent producers with one key create exactly one job`, async () => {
    let results: Array<Pick<EnqueuedJob, 'id' | 'created'>>;
    if (t.db.dialect === 'postgres') {
      // Each producer on its own connection.
      const stores = Array.from({ length: PRODUCERS }, () => new PostgresStore(t.db.url, { poolSize: 1 }));
      try {
        await Promise.all(stores.map((store) => store.ping()));
        results = await Promise.all(
          stores.map((store) => store.enqueue({ kind: 'k', idempotencyKey: 'race' })),
        );
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    } else {
      // Each producer its own process on the same file.
      // A barrier: every producer opens its store and says so, then all wait for one file.
      const folder = mkdtempSync(join(tmpdir(), 'nudge-idem-'));
      const start = join(folder, 'start');
      const ready = join(folder, 'ready');
      mkdirSync(ready);
      const run = promisify(execFile);
      const producers = Array.from({ length: PRODUCERS }, () =>
        run(process.execPath, [PRODUCER, t.db.url, 'race', start, ready]),
      );
      await waitUntil(
        () => (readdirSync(ready).length === PRODUCERS ? true : undefined),
        30_000,
        5,
        'every producer ready',
      );
      writeFileSync(start, '');
      results = (await Promise.all(producers)).map(({ stdout }) => JSON.parse(stdout) as EnqueuedJob);
    }
    assert.equal(await total(), 1);
    assert.equal(new Set(results.map((r) => r.id)).size, 1, 'every producer got the same job');
    assert.equal(results.filter((r) => r.created).length, 1, 'exactly one producer created it');
  });
});
