// Engine.sendSignal: a signal sent through this instance releases a job waiting for it and claims
// again at once. Nothing else would wake the engine: on SQLite an instance's own commits change
// nothing it watches, and LISTEN is off here, as behind a pooler without a direct listen URL. The
// poll interval is a minute, so only the claim the signal asked for explains a prompt start.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describeEngine, DURABLE_HANDLERS, waitForEvent, waitUntil } from '../helpers/index.js';

const POLL_MS = 60_000;

describeEngine('engine: a signal through this instance', (t) => {
  it('releases the job waiting for it, which runs well within the poll interval; a repeat emits nothing', async () => {
    const engine = await t.engine({
      handlers: DURABLE_HANDLERS,
      threads: 1,
      asyncConcurrency: 1,
      pollIntervalMs: POLL_MS,
      listen: false,
    });
    const ledger = join(t.scratch.dir, 'ledger');
    const job = await t.store.enqueue({ kind: 'asyncFlow', payload: { ledger, signal: 'approve' } });
    engine.start();
    await waitUntil(
      async () => ((await t.store.getJob(job.id))?.status === 'WAITING' ? true : undefined),
      20_000,
      10,
      'the job to wait for its signal',
    );
    // 90% of the interval: the earliest a jittered poll can come.
    const pollNotBefore = performance.now() + 0.9 * POLL_MS;
    const sentEvent = waitForEvent<{ id: number; name: string; signalId: string | null }>(
      engine,
      'signal:sent',
    );
    const sent = await engine.sendSignal({
      jobId: job.id,
      name: 'approve',
      payloadJson: '"yes"',
      signalId: 's-1',
    });
    assert.equal(sent.created, true);
    assert.deepEqual(await sentEvent, { id: job.id, name: 'approve', signalId: 's-1' });
    const done = await waitUntil(
      async () => {
        const read = await t.store.getJob(job.id);
        return read?.status === 'SUCCEEDED' ? read : undefined;
      },
      20_000,
      10,
      'the released job to succeed',
    );
    assert.ok(performance.now() < pollNotBefore, 'the job ran before the first poll could');
    assert.equal((done.result as { got: unknown }).got, 'yes');

    let emitted = 0;
    engine.on('signal:sent', () => (emitted += 1));
    const repeat = await engine.sendSignal({ jobId: job.id, name: 'approve', signalId: 's-1' });
    assert.deepEqual(repeat, { signal: sent.signal, created: false });
    assert.equal(emitted, 0, 'a repeat sends nothing');
    await assert.rejects(engine.sendSignal({ jobId: job.id, name: 'approve' }), {
      code: 'JOB_STATE_CONFLICT',
    });
  });
});
