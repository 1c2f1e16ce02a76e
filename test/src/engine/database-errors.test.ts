// Real database errors on the hot path: a trigger raises for claims or completions while armed.
// The engine reports each failure as an event, keeps its slots and leases, and carries on once
// the database accepts the writes again.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeEngine, installFaults, waitForEvent } from '../helpers/index.js';

describeEngine('engine: database errors', (t) => {
  it('a failing claim is reported as claim:error, and claiming goes on once it works again', async () => {
    const faults = await installFaults(t.db);
    await faults.arm('claim');
    const engine = await t.engine({ threads: 1, pollIntervalMs: 100 });
    const job = await t.store.enqueue({ kind: 'echo', payload: { n: 1 } });
    const errors: unknown[] = [];
    engine.on('claim:error', ({ error }: { error: unknown }) => errors.push(error));
    const failed = waitForEvent(engine, 'claim:error');
    engine.start();
    await failed;
    // The poll tries again, and fails again, while the fault is armed.
    await waitForEvent(engine, 'claim:error');
    assert.match(String((errors[0] as Error).message), /injected fault: claim|integer overflow/);
    const waiting = await t.store.getJob(job.id);
    assert.deepEqual([waiting?.status, waiting?.attempts, waiting?.version], ['PENDING', 0, 0]);
    const succeeded = waitForEvent<{ id: number }>(engine, 'job:succeeded', (lease) => lease.id === job.id);
    await faults.disarm('claim');
    // With one slot, this also shows the failed claims gave their slot back.
    await succeeded;
    const done = await t.store.getJob(job.id);
    assert.deepEqual([done?.status, done?.attempts, done?.version], ['SUCCEEDED', 1, 1]);
    assert.deepEqual((done?.result as { payload: unknown }).payload, { n: 1 });
    // The engine goes on: the next job is claimed and runs.
    const next = await t.store.enqueue({ kind: 'echo' });
    engine.requestClaim();
    await waitForEvent<{ id: number }>(engine, 'job:succeeded', (lease) => lease.id === next.id);
  });

  it('a failing completion is reported as outcome:error and written once it works again', async () => {
    const faults = await installFaults(t.db);
    await faults.arm('complete');
    const engine = await t.engine({ threads: 1 });
    const job = await t.store.enqueue({ kind: 'echo', payload: { n: 2 } });
    const errors: unknown[] = [];
    engine.on('outcome:error', ({ error }: { error: unknown }) => errors.push(error));
    const failed = waitForEvent(engine, 'outcome:error');
    engine.start();
    await failed;
    // The writer retries, and fails again, while the fault is armed.
    await waitForEvent(engine, 'outcome:error');
    assert.match(String((errors[0] as Error).message), /injected fault: complete|integer overflow/);
    const held = await t.store.getJob(job.id);
    assert.deepEqual(
      [held?.status, held?.attempts, held?.version],
      ['RUNNING', 1, 1],
      'still held by its claim',
    );
    const succeeded = waitForEvent<{ id: number; version: number }>(
      engine,
      'job:succeeded',
      (lease) => lease.id === job.id,
    );
    await faults.disarm('complete');
    assert.equal((await succeeded).version, 1);
    const done = await t.store.getJob(job.id);
    assert.deepEqual([done?.status, done?.attempts, done?.version], ['SUCCEEDED', 1, 1]);
    assert.deepEqual((done?.result as { payload: unknown }).payload, { n: 2 }, 'the result of the one run');
    // The engine goes on: the next job runs and is recorded at once.
    const next = await t.store.enqueue({ kind: 'echo' });
    engine.requestClaim();
    await waitForEvent<{ id: number }>(engine, 'job:succeeded', (lease) => lease.id === next.id);
  });
});
