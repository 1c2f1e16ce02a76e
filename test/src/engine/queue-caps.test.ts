import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEngine, waitForEvent, waitUntil } from '../helpers/index.js';

/** Most jobs of `ids` running at once, from `start <id>` / `end <id>` lines in order. */
function peakRunning(lines: readonly string[], ids: ReadonlySet<number>): number {
  let running = 0;
  let peak = 0;
  for (const line of lines) {
    const [event, id] = line.split(' ');
    if (!ids.has(Number(id))) continue;
    running += event === 'start' ? 1 : -1;
    peak = Math.max(peak, running);
  }
  return peak;
}

describeEngine('engine: named queues', (t) => {
  it('never runs more jobs of a capped queue at once than its cap, while other queues use the other slots', async () => {
    const events = join(t.scratch.dir, 'events');
    writeFileSync(events, '');
    const engine = await t.engine({
      asyncThreads: 1,
      asyncConcurrency: 10,
      queues: [{ name: '*' }, { name: 'reports', cap: 2 }],
    });
    const payload = { events, ms: 150 };
    const reports = await t.store.enqueueMany(
      Array.from({ length: 8 }, () => ({ kind: 'overlap', queue: 'reports', payload })),
    );
    const others = await t.store.enqueueMany(Array.from({ length: 8 }, () => ({ kind: 'overlap', payload })));
    let succeeded = 0;
    engine.on('job:succeeded', () => (succeeded += 1));
    engine.start();
    await waitUntil(() => (succeeded === 16 ? true : undefined), 20_000, 25, 'every job to succeed');
    const lines = readFileSync(events, 'utf8').trim().split('\n');
    const reportIds = new Set(reports.map((job) => job.id));
    const otherIds = new Set(others.map((job) => job.id));
    assert.equal(peakRunning(lines, reportIds), 2, 'the cap of 2 is reached and never passed');
    assert.ok(
      peakRunning(lines, otherIds) >= 6,
      `the uncapped queue runs in the slots the cap leaves (peak ${peakRunning(lines, otherIds)})`,
    );
    assert.ok(
      peakRunning(lines, new Set([...reportIds, ...otherIds])) > 2,
      'both queues ran at the same time',
    );
  });

  it('claims only from the queues it serves', async () => {
    const engine = await t.engine({ queues: [{ name: 'default' }, { name: 'emails', cap: 1 }] });
    const served = await t.store.enqueueMany([{ kind: 'noop' }, { kind: 'noop', queue: 'emails' }]);
    const other = await t.store.enqueue({ kind: 'noop', queue: 'elsewhere' });
    let succeeded = 0;
    engine.on('job:succeeded', () => (succeeded += 1));
    engine.start();
    await waitUntil(() => (succeeded === 2 ? true : undefined), 10_000, 25, 'the served jobs');
    for (let polls = 0; polls < 3; polls += 1) await waitForEvent(engine, 'claim:empty');
    assert.deepEqual(
      (await Promise.all(served.map((job) => t.store.getJob(job.id)))).map((job) => job?.status),
      ['SUCCEEDED', 'SUCCEEDED'],
    );
    assert.equal((await t.store.getJob(other.id))?.status, 'PENDING', 'a queue it does not serve waits');
  });

  it('a paused queue is claimed by no instance until it is resumed', async () => {
    await t.store.setQueuePaused('emails', true);
    const engine = await t.engine();
    const paused = await t.store.enqueue({ kind: 'noop', queue: 'emails' });
    const running = await t.store.enqueue({ kind: 'noop' });
    engine.start();
    await waitForEvent(engine, 'job:succeeded', (lease: { id: number }) => lease.id === running.id);
    // Several polls later, the paused queue's job is still waiting, and so is one enqueued now.
    const viaEngine = await engine.enqueue({ kind: 'noop', queue: 'emails' });
    for (let polls = 0; polls < 3; polls += 1) await waitForEvent(engine, 'claim:empty');
    assert.equal((await t.store.getJob(paused.id))?.status, 'PENDING');
    assert.equal(viaEngine.status, 'PENDING', 'an enqueue through the engine does not claim it either');
    // The outcome of each claim query begun once the resume was asked for (one runs at a time). The
    // first may have begun before the resume committed and found nothing; the next one began after.
    const outcomes: string[] = [];
    let begun = 0;
    engine.on('claim:query', () => (begun += 1));
    for (const outcome of ['claim:claimed', 'claim:empty'] as const)
      engine.on(outcome, () => void (begun > 0 && outcomes.push(outcome)));
    await t.store.setQueuePaused('emails', false);
    // Both are claimed, but either may finish first: wait for both.
    const statuses = async () =>
      Promise.all([paused, viaEngine].map(async (job) => (await t.store.getJob(job.id))?.status));
    await waitUntil(
      async () => ((await statuses()).every((status) => status === 'SUCCEEDED') ? true : undefined),
      10_000,
      25,
      'the resumed jobs',
    );
    assert.ok(
      outcomes.slice(0, 2).includes('claim:claimed'),
      `the first claim begun after the resume took them (outcomes: ${outcomes.join(', ')})`,
    );
  });
});
