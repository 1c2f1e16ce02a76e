// A step never starts in an attempt that was aborted (the job cancelled here, its lease lost, a
// timeout, a shutdown): a handler deaf to `ctx.signal` that reaches its next `ctx.step` after the
// abort gets the abort's error, and the step's function does not run. Another attempt may own
// the job and run that step, so running it here would repeat its side effect for nothing (its
// write would be fenced out). Both dialects, both execution classes.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEngine, DURABLE_HANDLERS, waitForEvent, waitUntil } from '../helpers/index.js';

/** The ledger lines of job `id`: `<step> <attempt>` each, in the order they ran. */
function ledgerOf(file: string, id: number): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${id} `))
    .map((line) => line.slice(String(id).length + 1));
}

describeEngine('engine: no step starts after its attempt was aborted', (t) => {
  for (const kind of ['gatedSteps', 'asyncGatedSteps'] as const) {
    it(`${kind}: a cancel between two steps keeps the second from running`, async () => {
      const ledger = join(t.scratch.dir, 'ledger');
      const gate = join(t.scratch.dir, 'gate');
      const abortedFile = join(t.scratch.dir, 'aborted');
      // A long grace, so that the thread is not terminated before the handler reaches step b.
      const e = await t.engine({
        handlers: DURABLE_HANDLERS,
        threads: 1,
        asyncConcurrency: 1,
        abortGraceMs: 30_000,
      });
      const job = await t.store.enqueue({ kind, payload: { ledger, gate, abortedFile } });
      const ended = waitForEvent<{ job: { id: number } }>(e, 'job:ended', (x) => x.job.id === job.id);
      const recorded = waitForEvent<{ write: { id: number; name: string }; written: boolean }>(
        e,
        'step:recorded',
        (x) => x.write.id === job.id && x.write.name === 'a',
      );
      e.start();
      assert.equal((await recorded).written, true, 'step a was recorded');
      assert.equal((await e.cancel(job.id)).outcome, 'changed');
      await waitUntil(
        () => (existsSync(abortedFile) ? true : undefined),
        20_000,
        10,
        'the abort in the thread',
      );
      writeFileSync(gate, '');
      await ended;
      assert.deepEqual(ledgerOf(ledger, job.id), ['a 1'], 'step b did not run');
      assert.equal((await t.store.getJob(job.id))?.status, 'CANCELLED');
      assert.deepEqual(
        (await t.store.jobSteps(job.id)).steps.map((s) => [s.name, s.status]),
        [['a', 'SUCCEEDED']],
      );
    });
  }
});
