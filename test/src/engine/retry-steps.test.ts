import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeEngine, waitForEvent } from '../helpers/index.js';
import { addSteps, stepNames } from '../helpers/step-rows.js';

const STEPS = ['fetch', 'charge', 'archive'];

describeEngine('engine: retry with steps', (t) => {
  it('retry and retryMany pass fromStep and resetSteps to the store; a refused retry emits nothing', async () => {
    const engine = await t.engine();
    const [one, many] = await t.store.enqueueMany([
      { kind: 'echo', queue: 'one' },
      { kind: 'echo', queue: 'many' },
    ]);
    assert.ok(one && many);
    for (const job of [one, many]) {
      await addSteps(t.db, job.id, STEPS);
      await t.store.cancelJob(job.id);
    }
    const events: unknown[] = [];
    engine.on('command:done', (event) => events.push(event));
    await assert.rejects(engine.retry(one.id, { fromStep: 'refund' }), { code: 'STEP_NOT_FOUND' });
    await assert.rejects(engine.retry(one.id, { fromStep: 'fetch', resetSteps: true }), {
      code: 'INVALID_REQUEST',
    });
    assert.deepEqual(events, [], 'nothing retried, nothing announced');
    const done = waitForEvent(engine, 'command:done');
    assert.equal((await engine.retry(one.id, { fromStep: 'charge' })).outcome, 'changed');
    await done;
    assert.deepEqual(await stepNames(t.db, one.id), ['fetch']);
    const result = await engine.retryMany({ status: 'CANCELLED', queue: 'many', resetSteps: true });
    assert.equal(result.changed, 1);
    assert.deepEqual(await stepNames(t.db, many.id), []);
  });
});
