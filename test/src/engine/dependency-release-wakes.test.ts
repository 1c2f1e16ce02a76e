// A success, or a final failure under onDependencyFailure: 'run', that releases dependents claims
// again at once. Nothing else would wake the engine: on SQLite an instance's own commits change
// nothing it watches, and here LISTEN is off, as behind a pooler without a direct listen URL. The
// poll interval is a minute, so only the claim the outcome asked for explains a prompt start (the
// flights-3m merge waited for the poll).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeEngine, waitForEvent, waitUntil } from '../helpers/index.js';

const POLL_MS = 60_000;

describeEngine('engine: a released dependent starts without waiting for the poll', (t) => {
  /** Waits for job `id` to succeed, and asserts it did before `pollNotBefore` (`performance.now()`). */
  async function succeedsBeforePoll(id: number, pollNotBefore: number): Promise<void> {
    const done = await waitUntil(
      async () => {
        const job = await t.store.getJob(id);
        return job?.status === 'SUCCEEDED' ? job : undefined;
      },
      20_000,
      10,
      `job ${id} to succeed`,
    );
    assert.equal(done.status, 'SUCCEEDED');
    assert.ok(performance.now() < pollNotBefore, 'the dependent ran before the first poll could');
  }

  for (const outcome of ['succeeded', 'failed'] as const) {
    it(`the dependent of a job this instance ${outcome === 'succeeded' ? 'completed' : 'failed for good (onDependencyFailure: run)'} starts well within the poll interval`, async () => {
      const engine = await t.engine({ threads: 1, pollIntervalMs: POLL_MS, listen: false });
      const [parent, child] = await t.store.enqueueMany([
        outcome === 'succeeded'
          ? { kind: 'echo', payload: { part: 0 } }
          : { kind: 'fail', payload: { message: 'no' }, maxAttempts: 1 },
        { kind: 'echo', payload: { part: 1 }, dependsOn: [{ index: 0 }], onDependencyFailure: 'run' },
      ]);
      assert.ok(parent && child);
      assert.equal(child.status, 'WAITING');
      // 90% of the interval: the earliest a jittered poll can come.
      const pollNotBefore = performance.now() + 0.9 * POLL_MS;
      const parentDone = waitForEvent<{ id: number }>(engine, `job:${outcome}`);
      engine.start();
      assert.equal((await parentDone).id, parent.id);
      await succeedsBeforePoll(child.id, pollNotBefore);
    });
  }

  it('the dependent of a job cancelled through this instance (onDependencyFailure: run) starts well within the poll interval', async () => {
    const engine = await t.engine({ threads: 1, pollIntervalMs: POLL_MS, listen: false });
    const [parent, child] = await t.store.enqueueMany([
      { kind: 'echo', payload: { part: 0 }, delayMs: 3_600_000 },
      { kind: 'echo', payload: { part: 1 }, dependsOn: [{ index: 0 }], onDependencyFailure: 'run' },
    ]);
    assert.ok(parent && child);
    assert.equal(child.status, 'WAITING');
    const pollNotBefore = performance.now() + 0.9 * POLL_MS;
    const firstClaim = waitForEvent(engine, 'claim:empty');
    engine.start();
    await firstClaim;
    assert.equal((await engine.cancel(parent.id)).outcome, 'changed');
    await succeedsBeforePoll(child.id, pollNotBefore);
  });
});
