import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEngine, rawQuery, waitUntil } from '../helpers/index.js';

/** The most of `lines` (`start <id>` / `end <id>`) running at once, overall and per group of `groupOf`. */
function peaks(lines: readonly string[], groupOf: (id: number) => string): { all: number; perGroup: number } {
  const running = new Map<string, number>();
  let all = 0;
  let peakAll = 0;
  let peakGroup = 0;
  for (const line of lines) {
    const [event, idText] = line.split(' ');
    const group = groupOf(Number(idText));
    const step = event === 'start' ? 1 : -1;
    all += step;
    running.set(group, (running.get(group) ?? 0) + step);
    peakAll = Math.max(peakAll, all);
    peakGroup = Math.max(peakGroup, running.get(group) ?? 0);
  }
  return { all: peakAll, perGroup: peakGroup };
}

// Polls are an hour apart here: every claim after the first comes from the limits' own wake-ups
// (an outcome written, a rate window opening), so a missing one stalls the test.
const NO_POLLS = { pollIntervalMs: 3_600_000, idlePollMaxMs: 3_600_000, asyncConcurrency: 8 };

describeEngine('engine: cluster-wide queue limits', (t) => {
  /** Queue `partner` with concurrency 1 and two jobs, the first claimed by another instance. */
  const slotHeldElsewhere = async () => {
    await t.store.setQueueLimits('partner', { concurrency: 1 });
    const [held, waiting] = await t.store.enqueueMany([
      { kind: 'noop', queue: 'partner' },
      { kind: 'noop', queue: 'partner' },
    ]);
    assert.ok(held && waiting);
    const [other] = await t.store.claim({
      workerId: 'elsewhere',
      leaseMs: 60_000,
      groups: [{ kinds: ['noop'], limit: 1 }],
    });
    assert.ok(other);
    assert.equal(other.id, held.id);
    return { other, waiting };
  };

  it('two instances together keep to the queue concurrency and one job per key, and finish every job', async () => {
    const events = join(t.scratch.dir, 'events');
    writeFileSync(events, '');
    await t.store.setQueueLimits('api', { concurrency: 3, keyConcurrency: 1 });
    const jobs = await t.store.enqueueMany(
      Array.from({ length: 18 }, (_, i) => ({
        kind: 'overlap',
        queue: 'api',
        concurrencyKey: `customer-${i % 4}`,
        payload: { events, ms: 60 },
      })),
    );
    const keyOf = new Map(jobs.map((job) => [job.id, job.concurrencyKey ?? '']));
    let succeeded = 0;
    const engines = [await t.engine(NO_POLLS), await t.engine(NO_POLLS)];
    for (const engine of engines) engine.on('job:succeeded', () => (succeeded += 1));
    for (const engine of engines) engine.start();
    await waitUntil(() => (succeeded === 18 ? true : undefined), 20_000, 25, 'every job to succeed');
    const lines = readFileSync(events, 'utf8').trim().split('\n');
    assert.ok(peaks(lines, () => 'all').all <= 3, 'at most 3 running at once across both instances');
    assert.equal(peaks(lines, () => 'all').all, 3, 'and the limit is reached');
    assert.equal(peaks(lines, (id) => keyOf.get(id) ?? '').perGroup, 1, 'one job per key at a time');
  });

  it('a rate-limited queue starts at most its limit in any window, and is woken when the window opens', async () => {
    await t.store.setQueueLimits('partner', { rateLimit: { limit: 2, intervalMs: 400 } });
    const jobs = await t.store.enqueueMany(
      Array.from({ length: 7 }, () => ({ kind: 'noop', queue: 'partner' })),
    );
    let succeeded = 0;
    const engine = await t.engine(NO_POLLS);
    engine.on('job:succeeded', () => (succeeded += 1));
    engine.start();
    await waitUntil(() => (succeeded === 7 ? true : undefined), 20_000, 25, 'every job to succeed');
    const rows = await rawQuery<{ started_at: string | Date }>(
      t.db,
      `SELECT started_at FROM nudge_jobs WHERE queue = 'partner' ORDER BY started_at`,
    );
    const starts = rows.map((row) => new Date(row.started_at).getTime());
    assert.equal(starts.length, jobs.length);
    for (const [i, start] of starts.entries()) {
      const inWindow = starts.filter((other) => other >= start && other < start + 400).length;
      assert.ok(inWindow <= 2, `at most 2 starts in the 400 ms from start ${i} (got ${inWindow})`);
    }
    const spanMs = (starts.at(-1) ?? 0) - (starts[0] ?? 0);
    assert.ok(spanMs >= 1_200, `7 starts at 2 per 400 ms take at least 1,200 ms (took ${spanMs})`);
  });

  it('room freed by another instance is found at the short poll, not the idle one', async () => {
    const { other } = await slotHeldElsewhere();
    const engine = await t.engine({ pollIntervalMs: 200, idlePollMaxMs: 3_600_000 });
    let heldBack = 0;
    engine.on('claim:held-back', () => (heldBack += 1));
    let started = false;
    engine.on('job:started', () => (started = true));
    engine.start();
    await waitUntil(
      () => (heldBack >= 8 ? true : undefined),
      5_000,
      10,
      'eight polls at the short interval, each held back',
    );
    // The other instance's job ends there: nothing tells this one, which finds the room at its poll.
    await t.store.complete([{ id: other.id, version: other.version, resultJson: null }]);
    await waitUntil(
      () => (started ? true : undefined),
      5_000,
      10,
      'the waiting job to start within the short poll',
    );
  });

  it('an outcome of another queue looks again at a held-back queue soon after, without a poll', async () => {
    const events = join(t.scratch.dir, 'events-elsewhere');
    writeFileSync(events, '');
    const { other, waiting } = await slotHeldElsewhere();
    const engine = await t.engine(NO_POLLS);
    const started = new Set<number>();
    engine.on('job:started', ({ job }) => started.add(job.id));
    engine.start();
    // A job of another queue runs here while the other instance's job of `partner` ends there.
    const [busy] = await t.store.enqueueMany([
      { kind: 'overlap', queue: 'other', payload: { events, ms: 300 } },
    ]);
    assert.ok(busy);
    engine.requestClaim();
    await waitUntil(() => (started.has(busy.id) ? true : undefined), 5_000, 10, 'the other job to start');
    await t.store.complete([{ id: other.id, version: other.version, resultJson: null }]);
    // On PostgreSQL nothing announces that end; polls are an hour apart. This instance's own
    // outcome of the other queue's job makes it look again.
    await waitUntil(
      () => (started.has(waiting.id) ? true : undefined),
      5_000,
      10,
      'the waiting job of partner to start after the other job ends',
    );
  });
});
