import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEngine, rawQuery, waitForEvent, waitUntil } from '../helpers/index.js';

describeEngine('a job claimed again while its older attempt still runs here', (t) => {
  // An instance that stalled past its lease (SIGSTOP, a long GC pause) finds, once it runs again,
  // that the sweep made its job PENDING; it may claim the job itself before its heartbeat tells
  // it the older attempt's lease is gone. The two attempts must not run side by side.
  it('aborts the older attempt as lost and starts the new one only once the older one ended', async () => {
    const engine = await t.engine({
      threads: 1,
      asyncThreads: 1,
      asyncConcurrency: 4,
      leaseMs: 60_000,
      abortGraceMs: 5_000,
    });
    const events = join(t.scratch.dir, 'events');
    const job = await t.store.enqueue({ kind: 'lingerOnAbort', payload: { events, lingerMs: 300 } });
    engine.start();
    await waitForEvent(engine, 'job:started');
    // What the sweep does to an expired lease: back to PENDING, due now, version bumped.
    await rawQuery(t.db, `UPDATE nudge_jobs SET status = 'PENDING', version = version + 1 WHERE id = ?`, [
      job.id,
    ]);
    engine.requestClaim();
    const succeeded = await waitForEvent<{ id: number; version: number }>(engine, 'job:succeeded');
    assert.equal(
      succeeded.version,
      job.version + 3,
      'claimed, recovered, claimed again: the new attempt wrote',
    );
    const lines = readFileSync(events, 'utf8').trim().split('\n');
    assert.deepEqual(lines, [
      'start 1',
      'end 1 the lease was lost: another attempt may own this job now',
      'start 2',
      'end 2',
    ]);
    const row = await t.store.getJob(job.id);
    assert.equal(row?.status, 'SUCCEEDED');
    assert.deepEqual(row?.result, { attempt: 2 });
    await waitUntil(() => (engine.slots.async?.free === 4 ? true : undefined), 5_000, 10, 'every slot back');
  });
});
