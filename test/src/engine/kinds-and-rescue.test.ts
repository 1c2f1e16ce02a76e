import { it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PARTIAL_HANDLERS, describeEngine, rawQuery, waitForEvent, waitUntil } from '../helpers/index.js';

describeEngine('engine: kinds an instance lacks, and the rescuer', (t) => {
  it('an instance never claims a kind it has no handler for; one that has it runs it', async () => {
    const partial = await t.engine({ handlers: PARTIAL_HANDLERS, pollIntervalMs: 20 });
    const file = join(t.scratch.dir, 'tally');
    const echo = await t.store.enqueue({ kind: 'echo', payload: { n: 1 } });
    await t.store.enqueueMany(Array.from({ length: 30 }, () => ({ kind: 'tally', payload: { file } })));
    let claims = 0;
    partial.on('claim:claimed', () => (claims += 1));
    partial.start();
    await waitUntil(
      async () => ((await t.store.countByStatus()).SUCCEEDED === 30 ? true : undefined),
      15_000,
    );
    // Keep polling a while with an idle instance: it still must not touch the echo job.
    for (let i = 0; i < 5; i += 1) await waitForEvent(partial, 'claim:empty');
    assert.ok(claims >= 1);
    const waiting = await t.store.getJob(echo.id);
    assert.equal(waiting?.status, 'PENDING');
    assert.equal(waiting?.claimedBy, null);
    assert.equal(waiting?.attempts, 0);
    const full = await t.engine();
    full.start();
    await waitUntil(
      async () => ((await t.store.getJob(echo.id))?.status === 'SUCCEEDED' ? true : undefined),
      15_000,
    );
    assert.equal((await t.store.getJob(echo.id))?.claimedBy, full.options.workerId);
  });

  it('fails a job whose kind no live instance handles after the grace, naming the kind', async () => {
    const partial = await t.engine({ handlers: PARTIAL_HANDLERS, unhandledKindGraceMs: 300 });
    const orphan = await t.store.enqueue({ kind: 'echo' });
    const failed = waitForEvent<{ failed: number; kinds: string[] }>(
      partial,
      'unhandled:failed',
      () => true,
      15_000,
    );
    partial.start();
    assert.deepEqual(await failed, { failed: 1, kinds: ['echo'] });
    const row = await t.store.getJob(orphan.id);
    assert.equal(row?.status, 'FAILED');
    assert.equal(row?.attempts, 0, 'never attempted');
    assert.match(
      row?.lastError ?? '',
      /^no running instance has a handler for kind "echo" \(kinds handled now: asyncTally, noop, tally\)/,
    );
    const [instance] = await rawQuery<{ id: string }>(t.db, 'SELECT id FROM nudge_instances');
    assert.equal(instance?.id, partial.options.workerId, 'the instance registered itself');
  });

  it('a job waits past the grace without failing while another live instance handles its kind', async () => {
    const partial = await t.engine({ handlers: PARTIAL_HANDLERS, unhandledKindGraceMs: 200 });
    const full = await t.engine({ threads: 1 });
    const scratchHold = { releaseFile: t.scratch.releaseFile };
    // The full instance is busy, so the echo job waits past the grace.
    await t.store.enqueue({ kind: 'hold', payload: scratchHold });
    full.start();
    await waitForEvent(full, 'job:started');
    const echo = await t.store.enqueue({
      kind: 'echo',
      runAt: new Date((await t.store.now()).getTime() - 10_000),
    });
    partial.start();
    // Both instances are in the registry: the check runs for real, and finds echo handled.
    await waitUntil(async () => {
      const rows = await rawQuery<{ n: number | string }>(t.db, 'SELECT count(*) AS n FROM nudge_instances');
      return Number(rows[0]?.n) === 2 ? true : undefined;
    });
    for (let i = 0; i < 3; i += 1) assert.equal((await partial.failUnhandledKindsOnce()).failed, 0);
    assert.equal((await t.store.getJob(echo.id))?.status, 'PENDING');
    t.scratch.release();
    await waitUntil(
      async () => ((await t.store.getJob(echo.id))?.status === 'SUCCEEDED' ? true : undefined),
      15_000,
    );
  });

  it('the rescuer recovers 20,000 expired leases in a bounded number of passes', async () => {
    const count = 20_000;
    for (let i = 0; i < count; i += 5000) {
      await t.store.enqueueMany(Array.from({ length: 5000 }, () => ({ kind: 'noop' })));
    }
    let claimed = 0;
    for (;;) {
      const jobs = await t.store.claim({
        workerId: 'ghost',
        leaseMs: 300,
        groups: [{ kinds: ['noop'], limit: 5000 }],
      });
      if (jobs.length === 0) break;
      claimed += jobs.length;
    }
    assert.equal(claimed, count);
    const [row] = await rawQuery<{ at: string | Date }>(
      t.db,
      `SELECT max(lease_expires_at) AS at FROM nudge_jobs`,
    );
    const expiry = new Date(row?.at ?? 0).getTime();
    await waitUntil(async () => ((await t.store.now()).getTime() > expiry ? true : undefined), 10_000);
    const engine = await t.engine({ handlers: PARTIAL_HANDLERS });
    const result = await engine.sweepOnce();
    assert.equal(result.requeued, count);
    assert.equal(result.failed, 0);
    assert.ok(result.passes <= 11, `${result.passes} passes for ${count} leases`);
    assert.equal((await t.store.countByStatus()).RUNNING, 0);
  });
});
