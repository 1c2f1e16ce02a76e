// A retry through the engine of a job whose step failed for good: by default it resumes where it
// failed (the finished step never runs again); fromStep and resetSteps run the cleared steps
// again. Both dialects, both execution classes.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RetrySteps } from '@nudge/store';
import { describeEngine, DURABLE_HANDLERS, waitUntil, type EngineCase } from '../helpers/index.js';

/** The ledger lines of job `id`: `<step> <attempt>` each, in the order they ran. */
function ledgerOf(file: string, id: number): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${id} `))
    .map((line) => line.slice(String(id).length + 1));
}

async function settled(t: EngineCase, id: number, status: string): Promise<void> {
  await waitUntil(
    async () => ((await t.store.getJob(id))?.status === status ? true : undefined),
    20_000,
    10,
    `job ${id} to be ${status}`,
  );
}

describeEngine('engine: a retry resumes from the steps it keeps', (t) => {
  const cases: [string, RetrySteps | undefined, string[]][] = [
    ['keeps the finished step: only the failed one runs again', undefined, ['a 1', 'b 1', 'b 1']],
    ['fromStep a: both steps run again', { fromStep: 'a' }, ['a 1', 'b 1', 'a 1', 'b 1']],
    ['fromStep b: only b runs again', { fromStep: 'b' }, ['a 1', 'b 1', 'b 1']],
    ['resetSteps: both steps run again', { resetSteps: true }, ['a 1', 'b 1', 'a 1', 'b 1']],
  ];
  for (const kind of ['flow', 'asyncFlow'] as const) {
    for (const [title, steps, expected] of cases) {
      it(`${kind}, ${title}`, async () => {
        const ledger = join(t.scratch.dir, 'ledger');
        const fixedFile = join(t.scratch.dir, 'fixed');
        const engine = await t.engine({ handlers: DURABLE_HANDLERS, threads: 1, asyncConcurrency: 2 });
        const job = await t.store.enqueue({ kind, payload: { ledger, fixedFile }, maxAttempts: 1 });
        engine.start();
        await settled(t, job.id, 'FAILED');
        assert.deepEqual(ledgerOf(ledger, job.id), ['a 1', 'b 1']);
        writeFileSync(fixedFile, '');
        const retried = await engine.retry(job.id, steps);
        assert.equal(retried.outcome, 'changed');
        await settled(t, job.id, 'SUCCEEDED');
        assert.deepEqual(ledgerOf(ledger, job.id), expected);
      });
    }
  }
});
