// The metrics for flow control, on both dialects, checked against the database: each limited
// queue's RUNNING count against its limit (read from the database, the same on every instance),
// and the time jobs waited on their dependencies (measured at the claim by the database clock).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { NudgeMetrics } from '@nudge/http';
import { describeEngine, parsePrometheusText, waitUntil } from '../helpers/index.js';

describeEngine('metrics for flow control', (t) => {
  it("shows each recorded queue's running jobs against its limits, cluster-wide from the database", async () => {
    const engine = await t.engine({ threads: 3 });
    const metrics = new NudgeMetrics({
      store: t.store,
      engine,
      statusCountMaxAgeMs: 0,
      processMetrics: false,
    });
    const releaseFile = join(t.scratch.dir, 'release');
    try {
      await t.store.setQueueLimits('partner', {
        concurrency: 2,
        rateLimit: { limit: 50, intervalMs: 10_000 },
        keyConcurrency: 1,
      });
      await t.store.setQueuePaused('parked', true);
      await t.store.enqueueMany(
        Array.from({ length: 3 }, () => ({ kind: 'hold', queue: 'partner', payload: { releaseFile } })),
      );
      engine.start();
      await waitUntil(
        async () => ((await t.store.countByStatus()).RUNNING === 2 ? true : undefined),
        15_000,
        25,
        'two jobs of the limited queue to run (three threads are free)',
      );
      const scrape = parsePrometheusText(await metrics.scrape());
      assert.equal(scrape.types.get('nudge_queue_running'), 'gauge');
      assert.equal(scrape.sum('nudge_queue_running', { queue: 'partner' }), 2);
      assert.equal(scrape.sum('nudge_queue_concurrency_limit', { queue: 'partner' }), 2);
      assert.equal(scrape.sum('nudge_queue_key_concurrency_limit', { queue: 'partner' }), 1);
      assert.equal(scrape.sum('nudge_queue_rate_limit', { queue: 'partner' }), 5);
      // A recorded queue without limits has its running count and no limit series.
      const parked = (name: string) =>
        scrape.samples.filter((s) => s.name === name && s.labels.queue === 'parked');
      assert.deepEqual(
        parked('nudge_queue_running').map((s) => s.value),
        [0],
      );
      assert.deepEqual(parked('nudge_queue_concurrency_limit'), []);

      // A limit lifted loses its series; the running count follows the database.
      await t.store.setQueueLimits('partner', { concurrency: null, rateLimit: null, keyConcurrency: null });
      await waitUntil(
        async () => ((await t.store.countByStatus()).RUNNING === 3 ? true : undefined),
        15_000,
        25,
        'the third job to run once the limit is lifted',
      );
      const lifted = parsePrometheusText(await metrics.scrape());
      assert.equal(lifted.sum('nudge_queue_running', { queue: 'partner' }), 3);
      assert.equal(
        lifted.samples.some(
          (s) => s.name === 'nudge_queue_concurrency_limit' && s.labels.queue === 'partner',
        ),
        false,
      );
      writeFileSync(releaseFile, '');
      await waitUntil(
        async () => ((await t.store.countByStatus()).SUCCEEDED === 3 ? true : undefined),
        15_000,
        25,
        'the held jobs to finish',
      );
      assert.equal(
        parsePrometheusText(await metrics.scrape()).sum('nudge_queue_running', { queue: 'partner' }),
        0,
      );
    } finally {
      writeFileSync(releaseFile, '');
      metrics.close();
    }
  });

  it('measures how long jobs waited on their dependencies, from due to the last dependency’s finish', async () => {
    const engine = await t.engine();
    const metrics = new NudgeMetrics({ store: t.store, engine, processMetrics: false });
    try {
      // `first` is delayed, so `second` (due at once) waits on it at least that long.
      const [first, second, free] = await t.store.enqueueMany([
        { kind: 'noop', queue: 'flows', delayMs: 400 },
        { kind: 'noop', queue: 'flows', dependsOn: [{ index: 0 }] },
        { kind: 'noop', queue: 'flows' },
      ]);
      assert.ok(first && second && free);
      engine.start();
      const finished = async (id: number) =>
        waitUntil(
          async () => {
            const job = await t.store.getJob(id);
            return job?.status === 'SUCCEEDED' ? job : undefined;
          },
          15_000,
          25,
          `job ${id} to succeed`,
        );
      const [a, b] = [await finished(first.id), await finished(second.id)];
      await finished(free.id);
      const series = { kind: 'noop', queue: 'flows' };
      let scrape = parsePrometheusText(await metrics.scrape());
      assert.equal(scrape.types.get('nudge_dependency_wait_seconds'), 'histogram');
      assert.equal(scrape.sum('nudge_dependency_wait_seconds_count', series), 1, 'only the dependent');
      const expected = ((a.finishedAt?.getTime() ?? 0) - b.runAt.getTime()) / 1000;
      assert.ok(expected >= 0.4, `the dependent was due before its dependency's delay ended (${expected} s)`);
      assert.ok(
        Math.abs(scrape.sum('nudge_dependency_wait_seconds_sum', series) - expected) < 1e-6,
        `${scrape.sum('nudge_dependency_wait_seconds_sum', series)} s, as the database's times say ${expected} s`,
      );
      assert.equal(scrape.sum('nudge_dependency_wait_seconds_bucket', { ...series, le: '0.1' }), 0);

      // A dependent enqueued after its dependency finished did not wait: observed as 0.
      const late = await t.store.enqueue({ kind: 'noop', queue: 'flows', dependsOn: [first.id] });
      await finished(late.id);
      scrape = parsePrometheusText(await metrics.scrape());
      assert.equal(scrape.sum('nudge_dependency_wait_seconds_count', series), 2);
      assert.equal(scrape.sum('nudge_dependency_wait_seconds_bucket', { ...series, le: '0.001' }), 1);
      assert.ok(Math.abs(scrape.sum('nudge_dependency_wait_seconds_sum', series) - expected) < 1e-6);
      // ctx.dependencies still shows each dependency's status and result only.
      assert.equal((await t.store.getJob(late.id))?.status, 'SUCCEEDED');
    } finally {
      metrics.close();
    }
  });

  it("measures how long jobs waited on their queue's rate limit: the part of their wait the window was full", async () => {
    const engine = await t.engine({ threads: 4 });
    const metrics = new NudgeMetrics({ store: t.store, engine, processMetrics: false });
    const windows: Array<{ nowMs: number; rateWindows: Readonly<Record<string, number>> }> = [];
    engine.on('claim:rate-windows', (event) => windows.push(event));
    try {
      await t.store.setQueueLimits('metered', { rateLimit: { limit: 2, intervalMs: 1_000 } });
      const jobs = await t.store.enqueueMany([
        ...Array.from({ length: 4 }, () => ({ kind: 'noop', queue: 'metered' })),
        { kind: 'noop', queue: 'free' },
      ]);
      engine.start();
      await waitUntil(
        async () => ((await t.store.countByStatus()).SUCCEEDED === jobs.length ? true : undefined),
        15_000,
        25,
        'every job to run',
      );
      const scrape = parsePrometheusText(await metrics.scrape());
      const metered = { queue: 'metered' };
      assert.equal(scrape.types.get('nudge_rate_limit_wait_seconds'), 'histogram');
      assert.equal(scrape.sum('nudge_rate_limit_wait_seconds_count', metered), 4);
      assert.equal(
        scrape.sum('nudge_rate_limit_wait_seconds_count', { queue: 'free' }),
        0,
        'not rate-limited',
      );
      assert.equal(
        scrape.sum('nudge_rate_limit_wait_seconds_bucket', { ...metered, le: '0.001' }),
        2,
        'the first two started at once',
      );
      // The claims found the window full from the first two starts on, for `full` ms as the first
      // of them said, and up to `end` as later ones said (the database clock, a start counted up
      // to a grain longer): the other two, due all along, waited that long on it.
      const fullAt = windows.filter((event) => (event.rateWindows.metered ?? 0) > 0);
      const first = fullAt[0];
      assert.ok(first, 'a claim found the window full');
      const full = first.rateWindows.metered ?? 0;
      const end = Math.max(...fullAt.map((event) => event.nowMs + (event.rateWindows.metered ?? 0)));
      assert.ok(full > 500 && full <= 1_700, `the window was full about a second (${full} ms)`);
      const sum = scrape.sum('nudge_rate_limit_wait_seconds_sum', metered);
      assert.ok(
        sum >= (2 * full) / 1000 - 1e-6 && sum <= (2 * (end - first.nowMs)) / 1000 + 1e-6,
        `${sum} s waited: 2 × from ${full} to ${end - first.nowMs} ms`,
      );
    } finally {
      metrics.close();
    }
  });
});
