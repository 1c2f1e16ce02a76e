// Durable steps through the engine, on both dialects and both execution classes: a finished step
// never runs again, a failed one does, sleeps and signal waits end the attempt uncharged and free
// its slot, and a signal sent before the wait is seen.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Job } from '@nudge/core';
import {
  describeEngine,
  DURABLE_HANDLERS,
  waitForEvent,
  waitUntil,
  type EngineCase,
} from '../helpers/index.js';

/** The ledger lines of job `id`: `<step> <attempt>` each, in the order they ran. */
function ledgerOf(file: string, id: number): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${id} `))
    .map((line) => line.slice(String(id).length + 1));
}

async function finished(t: EngineCase, id: number, timeoutMs = 20_000): Promise<Job> {
  return waitUntil(
    async () => {
      const job = await t.store.getJob(id);
      return job && ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(job.status) ? job : undefined;
    },
    timeoutMs,
    20,
    `job ${id} to finish`,
  );
}

async function inStatus(t: EngineCase, id: number, status: string): Promise<Job> {
  return waitUntil(
    async () => {
      const job = await t.store.getJob(id);
      return job?.status === status ? job : undefined;
    },
    20_000,
    10,
    `job ${id} to be ${status}`,
  );
}

describeEngine('engine: durable steps', (t) => {
  const engine = (options: Record<string, unknown> = {}) =>
    t.engine({ handlers: DURABLE_HANDLERS, threads: 1, asyncConcurrency: 2, ...options });

  for (const kind of ['flow', 'asyncFlow'] as const) {
    it(`${kind}: a failed step runs again on the next attempt, a finished one never does`, async () => {
      const ledger = join(t.scratch.dir, 'ledger');
      const fixedFile = join(t.scratch.dir, 'fixed');
      const e = await engine();
      const job = await t.store.enqueue({ kind, payload: { ledger, fixedFile }, maxAttempts: 5 });
      e.start();
      await waitUntil(
        () => (ledgerOf(ledger, job.id).length >= 2 ? true : undefined),
        20_000,
        10,
        'step b to fail',
      );
      writeFileSync(fixedFile, '');
      const done = await finished(t, job.id);
      assert.equal(done.status, 'SUCCEEDED');
      const lines = ledgerOf(ledger, job.id);
      assert.deepEqual(
        lines.filter((l) => l.startsWith('a ')),
        ['a 1'],
        'step a ran once',
      );
      assert.ok(lines.filter((l) => l.startsWith('b ')).length >= 2, 'step b ran again after it failed');
      const result = done.result as { a: { a: number; at: string }; b: { b: number } };
      // The first attempt's step result, as JSON gives it back: the Date is its ISO text.
      assert.deepEqual(result.a, { a: job.id, at: new Date(0).toISOString() });
      assert.equal(result.b.b, done.attempts);
      const { steps } = await t.store.jobSteps(job.id);
      assert.deepEqual(
        steps.map((s) => [s.name, s.type, s.status, s.attempt]),
        [
          ['a', 'step', 'SUCCEEDED', 1],
          ['b', 'step', 'SUCCEEDED', done.attempts],
        ],
      );
      assert.ok(steps.every((s) => s.endedAt !== null && s.endedAt >= s.startedAt));
    });

    it(`${kind}: a sleep ends the attempt uncharged, frees its slot, and is not slept again`, async () => {
      const ledger = join(t.scratch.dir, 'ledger');
      const e = await engine({ threads: 1, asyncConcurrency: 1 });
      const sleeper = await t.store.enqueue({ kind, payload: { ledger, sleepMs: 1500 } });
      const suspended = waitForEvent<{ id: number; status: string }>(
        e,
        'job:suspended',
        (x) => x.id === sleeper.id,
      );
      e.start();
      assert.equal((await suspended).status, 'SCHEDULED');
      const asleep = await t.store.getJob(sleeper.id);
      assert.equal(asleep?.status, 'SCHEDULED');
      assert.equal(asleep?.attempts, 0, 'the sleep is not charged');
      // The one slot is free: another job of the class runs while the first sleeps.
      const other = await t.store.enqueue({ kind, payload: { ledger } });
      const otherDone = await finished(t, other.id);
      assert.equal(otherDone.status, 'SUCCEEDED');
      assert.equal((await t.store.getJob(sleeper.id))?.status, 'SCHEDULED', 'still asleep');
      const done = await finished(t, sleeper.id);
      assert.equal(done.status, 'SUCCEEDED');
      assert.equal(done.attempts, 1);
      assert.deepEqual(ledgerOf(ledger, sleeper.id), ['a 1', 'b 1']);
      const nap = (await t.store.jobSteps(sleeper.id)).steps.find((s) => s.name === 'nap');
      assert.equal(nap?.type, 'sleep');
      assert.ok(nap?.wakeAt && nap.wakeAt.getTime() - nap.startedAt.getTime() >= 1490);
    });

    it(`${kind}: a signal wait makes the job WAITING until the signal, whose payload it returns`, async () => {
      const ledger = join(t.scratch.dir, 'ledger');
      const e = await engine();
      const job = await t.store.enqueue({ kind, payload: { ledger, signal: 'approve' } });
      const suspended = waitForEvent<{ id: number; status: string }>(
        e,
        'job:suspended',
        (x) => x.id === job.id,
      );
      e.start();
      assert.equal((await suspended).status, 'WAITING');
      const waiting = await t.store.getJob(job.id);
      assert.equal(waiting?.status, 'WAITING');
      assert.equal(waiting?.attempts, 0);
      await t.store.sendSignal({ jobId: job.id, name: 'other', payloadJson: '1' });
      assert.equal((await t.store.getJob(job.id))?.status, 'WAITING', 'another name releases nothing');
      await t.store.sendSignal({ jobId: job.id, name: 'approve', payloadJson: '{"by":"ann"}' });
      // Released in the signal's transaction (and maybe claimed at once, heard through LISTEN).
      assert.notEqual(
        (await t.store.getJob(job.id))?.status,
        'WAITING',
        'released in the signal transaction',
      );
      const done = await finished(t, job.id);
      assert.equal(done.status, 'SUCCEEDED');
      assert.deepEqual((done.result as { got: unknown }).got, { by: 'ann' });
      assert.deepEqual(ledgerOf(ledger, job.id), ['a 1', 'b 1']);
    });
  }

  it('a signal sent before the wait is seen without suspending', async () => {
    const ledger = join(t.scratch.dir, 'ledger');
    const e = await engine();
    const job = await t.store.enqueue({ kind: 'flow', payload: { ledger, signal: 'go' } });
    await t.store.sendSignal({ jobId: job.id, name: 'go', payloadJson: '"early"' });
    await t.store.sendSignal({ jobId: job.id, name: 'go', payloadJson: '"second"' });
    let suspends = 0;
    e.on('job:suspended', () => (suspends += 1));
    e.start();
    const done = await finished(t, job.id);
    assert.equal((done.result as { got: unknown }).got, 'early', 'the first signal of the name');
    assert.equal(suspends, 0);
  });

  it('a wait past its deadline returns null, and a signal after it changes nothing', async () => {
    const ledger = join(t.scratch.dir, 'ledger');
    const holdFile = join(t.scratch.dir, 'hold');
    const startedFile = join(t.scratch.dir, 'started');
    const e = await engine();
    const job = await t.store.enqueue({
      kind: 'flow',
      payload: { ledger, signal: 'late', timeoutMs: 300, holdFile, startedFile },
    });
    e.start();
    await waitUntil(() => (existsSync(startedFile) ? true : undefined), 20_000, 10, 'step b to start');
    const wait = (await t.store.jobSteps(job.id)).steps.find((s) => s.name === 'late');
    assert.equal(wait?.status, 'TIMED_OUT');
    // The wait ended: a late signal is stored, but every later attempt's wait returns null.
    await t.store.sendSignal({ jobId: job.id, name: 'late', payloadJson: '"too late"' });
    writeFileSync(holdFile, '');
    const done = await finished(t, job.id);
    assert.equal((done.result as { got: unknown }).got, null);
  });

  it('a step name used twice in one attempt fails the attempt with STEP_NAME_REPEATED', async () => {
    const e = await engine();
    const job = await t.store.enqueue({ kind: 'repeatedName', payload: {}, maxAttempts: 1 });
    e.start();
    const done = await finished(t, job.id);
    assert.equal(done.status, 'FAILED');
    assert.match(done.lastError ?? '', /already used the name "twice"/);
  });

  it('a step whose result cannot be stored fails the job at once, without a retry', async () => {
    const e = await engine();
    const job = await t.store.enqueue({ kind: 'unstorableStep', payload: {}, maxAttempts: 3 });
    e.start();
    const done = await finished(t, job.id);
    assert.equal(done.status, 'FAILED');
    assert.equal(done.attempts, 1, 'no retry can store it');
    assert.match(done.lastError ?? '', /step "bad" returned a value that cannot be stored/);
    assert.deepEqual((await t.store.jobSteps(job.id)).steps, []);
  });

  it('a step result over 1 MiB fails the job at once, even when the handler catches the error', async () => {
    const e = await engine();
    const job = await t.store.enqueue({ kind: 'oversizedStep', payload: {}, maxAttempts: 3 });
    e.start();
    const done = await finished(t, job.id);
    assert.equal(done.status, 'FAILED');
    assert.equal(done.attempts, 1);
    assert.match(done.lastError ?? '', /step "big" returned \d+ bytes of JSON, more than the limit/);
  });

  it('a job that uses no steps ships none and writes none', async () => {
    const e = await engine();
    const job = await t.store.enqueue({ kind: 'plain', payload: {} });
    const started = waitForEvent<{ job: { id: number; stepsJson?: string } }>(e, 'job:started');
    e.start();
    assert.equal((await started).job.stepsJson, undefined);
    await finished(t, job.id);
    assert.deepEqual(await t.store.jobSteps(job.id), { steps: [], signals: [] });
  });

  it("a debounced job asleep in its first attempt is not the debounce key's waiting job", async () => {
    const ledger = join(t.scratch.dir, 'ledger');
    const e = await engine();
    const first = await t.store.enqueue({
      kind: 'flow',
      payload: { ledger, sleepMs: 1000 },
      debounce: { key: 'd', delayMs: 1 },
    });
    const suspended = waitForEvent<{ id: number }>(e, 'job:suspended', (x) => x.id === first.id);
    e.start();
    await suspended;
    const asleep = await t.store.getJob(first.id);
    assert.equal(asleep?.status, 'SCHEDULED');
    assert.equal(asleep?.attempts, 0, 'uncharged, as a job that never started');
    // A new enqueue under the key makes a job of its own: the sleeper's payload stays.
    const second = await t.store.enqueue({
      kind: 'flow',
      payload: { ledger },
      debounce: { key: 'd', delayMs: 60_000 },
    });
    assert.notEqual(second.id, first.id);
    assert.equal(second.created, true);
    assert.deepEqual((await t.store.getJob(first.id))?.payload, { ledger, sleepMs: 1000 });
    // A third is debounced into the second, the one that never started.
    const third = await t.store.enqueue({
      kind: 'flow',
      payload: { ledger, n: 3 },
      debounce: { key: 'd', delayMs: 60_000 },
    });
    assert.equal(third.id, second.id);
    const done = await finished(t, first.id);
    assert.equal(done.status, 'SUCCEEDED');
  });

  it("a sleeping job frees its queue's cluster-wide room, and its dependent waits for its end", async () => {
    const ledger = join(t.scratch.dir, 'ledger');
    await t.store.setQueueLimits('one-at-a-time', { concurrency: 1 });
    const e = await engine({ threads: 2 });
    const [sleeper, dependent] = await t.store.enqueueMany([
      { kind: 'flow', queue: 'one-at-a-time', payload: { ledger, sleepMs: 1500 } },
      { kind: 'flow', payload: { ledger }, dependsOn: [{ index: 0 }] },
    ]);
    assert.ok(sleeper && dependent);
    const suspended = waitForEvent<{ id: number }>(e, 'job:suspended', (x) => x.id === sleeper.id);
    e.start();
    await suspended;
    // The queue allows one running job: the sleeper holds none of its room.
    const other = await t.store.enqueue({ kind: 'flow', queue: 'one-at-a-time', payload: { ledger } });
    assert.equal((await finished(t, other.id)).status, 'SUCCEEDED');
    assert.equal((await t.store.getJob(sleeper.id))?.status, 'SCHEDULED');
    assert.equal((await t.store.getJob(dependent.id))?.status, 'WAITING', 'a sleep is not an end');
    assert.equal((await finished(t, sleeper.id)).status, 'SUCCEEDED');
    assert.equal((await finished(t, dependent.id)).status, 'SUCCEEDED');
  });

  it('a job cancelled while it waits for a signal keeps its steps, and its retry resumes past them', async () => {
    const ledger = join(t.scratch.dir, 'ledger');
    const e = await engine();
    const job = await t.store.enqueue({ kind: 'flow', payload: { ledger, signal: 'go' } });
    const suspended = waitForEvent<{ id: number }>(e, 'job:suspended', (x) => x.id === job.id);
    e.start();
    await suspended;
    assert.equal((await e.cancel(job.id)).outcome, 'changed');
    await assert.rejects(t.store.sendSignal({ jobId: job.id, name: 'go' }), { code: 'JOB_STATE_CONFLICT' });
    assert.equal((await e.retry(job.id)).outcome, 'changed');
    const again = waitForEvent<{ id: number; status: string }>(e, 'job:suspended', (x) => x.id === job.id);
    assert.equal((await again).status, 'WAITING', 'it waits again for its signal');
    await t.store.sendSignal({ jobId: job.id, name: 'go', payloadJson: '"after retry"' });
    const done = await finished(t, job.id);
    assert.equal((done.result as { got: unknown }).got, 'after retry');
    assert.deepEqual(ledgerOf(ledger, job.id), ['a 1', 'b 1'], 'step a ran once, before the cancel');
  });

  it('a sleepUntil in the past returns at once on the next run', async () => {
    const ledger = join(t.scratch.dir, 'ledger');
    const e = await engine();
    const job = await t.store.enqueue({
      kind: 'flow',
      payload: { ledger, sleepUntil: '2001-01-01T00:00:00.000Z' },
    });
    const suspended = waitForEvent<{ id: number; status: string }>(e, 'job:suspended');
    e.start();
    assert.equal((await suspended).status, 'PENDING', 'a wake-up time already passed: runnable at once');
    const done = await finished(t, job.id);
    assert.equal(done.status, 'SUCCEEDED');
    assert.equal(done.attempts, 1);
  });

  it('ten steps each cost one write, and the job finishes', async () => {
    const e = await engine();
    const job = await t.store.enqueue({ kind: 'tenSteps', payload: {} });
    let writes = 0;
    e.on('step:recorded', () => (writes += 1));
    e.start();
    const done = await finished(t, job.id);
    assert.equal(done.result, 10);
    assert.equal(writes, 10);
    await inStatus(t, job.id, 'SUCCEEDED');
  });
});
