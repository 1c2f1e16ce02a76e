// Bound: GET /metrics with 50,000 queue names. Every queue gets jobs enqueued, started and
// finished; the scrape must stay under 1 MB, with one series per metric for each configured,
// recorded or first-counted queue and one `(other)` series for the rest, and lose no count.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import {
  createHttpApp,
  DEFAULT_METRICS_MAX_QUEUES,
  LABEL_RERANK_MS,
  NudgeMetrics,
  nudgeRoutes,
  OTHER_LABEL,
} from '@nudge/http';
import { createStore, type Store } from '@nudge/store';
import { createMigratedDatabase, DIALECTS, type TestDatabase } from '@nudge/test-databases';
import { parsePrometheusText } from '../helpers/index.js';

const QUEUE_NAMES = 50_000;
/** The goal for the whole scrape, in bytes. */
const MAX_SCRAPE_BYTES = 1_000_000;

/** An engine stand-in whose events the test emits: the metrics only listen and read slots. */
class FakeEngine extends EventEmitter {
  readonly kinds = ['noop'];
  readonly slots = { cpu: { total: 2, free: 2 } };
  readonly claimRequests = { requested: 0, coalesced: 0 };

  /** Emits what the engine emits for one job that ran and succeeded. */
  ran(id: number, queue: string): void {
    const job = { id, version: 1, kind: 'noop', queue, waitMs: 5 };
    this.emit('job:started', { job });
    this.emit('job:ended', { job, execution: 'cpu', durationMs: 3 });
    this.emit('job:succeeded', { id, version: 1, kind: 'noop', queue });
  }
}

for (const dialect of DIALECTS) {
  describe(`GET /metrics with ${QUEUE_NAMES} queue names: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await createMigratedDatabase(dialect);
      store = createStore(db.url);
      await store.migrate();
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('stays under 1 MB with one (other) series, configured and recorded queues kept, no count lost', async () => {
      const engine = new FakeEngine();
      const metrics = new NudgeMetrics({
        store,
        engine: engine as never,
        queues: ['*', 'emails'],
        statusCountMaxAgeMs: 0,
        // Node's own metrics (a few kB) read NaN before the event loop is sampled.
        processMetrics: false,
      });
      const app = createHttpApp();
      await app.register(nudgeRoutes, {
        store,
        engine: { kinds: engine.kinds, requestClaim: () => undefined } as never,
        metrics,
      });
      const scrape = async () => {
        const response = await app.inject({ method: 'GET', url: '/metrics' });
        assert.equal(response.statusCode, 200);
        return { bytes: Buffer.byteLength(response.body), text: parsePrometheusText(response.body) };
      };
      try {
        const queues = Array.from({ length: QUEUE_NAMES }, (_, n) => `q-${n}`);
        metrics.enqueued(queues.map((queue) => ({ kind: 'noop', queue, created: true })));
        queues.forEach((queue, n) => engine.ran(n + 1, queue));
        // Recorded after the cap filled: a scrape pins it, and its later jobs get their own series.
        await store.setQueuePaused('late-recorded', true);
        await scrape();
        engine.ran(QUEUE_NAMES + 1, 'late-recorded');
        engine.ran(QUEUE_NAMES + 2, 'emails');

        const { bytes, text } = await scrape();
        assert.ok(bytes < MAX_SCRAPE_BYTES, `the scrape is ${bytes} bytes`);
        const succeeded = text.samples.filter((s) => s.name === 'nudge_jobs_succeeded_total');
        const labels = succeeded.map((s) => s.labels.queue ?? '');
        assert.equal(succeeded.length, DEFAULT_METRICS_MAX_QUEUES + 3, 'first 100, (other), pinned two');
        assert.ok(labels.includes(OTHER_LABEL));
        assert.ok(labels.includes('emails') && labels.includes('late-recorded'));
        assert.ok(labels.includes('q-0') && labels.includes('q-99') && !labels.includes('q-100'));
        assert.equal(text.sum('nudge_jobs_succeeded_total'), QUEUE_NAMES + 2, 'no count lost');
        assert.equal(text.sum('nudge_jobs_succeeded_total', { queue: OTHER_LABEL }), QUEUE_NAMES - 100);
        assert.equal(text.sum('nudge_jobs_enqueued_total'), QUEUE_NAMES);
        assert.equal(text.sum('nudge_job_duration_seconds_count'), QUEUE_NAMES + 2);
        const kindQueueSeries = text.samples.filter((s) => s.labels.queue !== undefined).length;
        // 4 counters and 2 histograms of 16 lines (13 buckets, +Inf, sum, count) per queue label.
        assert.ok(kindQueueSeries <= (DEFAULT_METRICS_MAX_QUEUES + 3) * (4 + 2 * 16), `${kindQueueSeries}`);
      } finally {
        metrics.close();
        await app.close();
      }
    });

    it('gives the busiest queues the series at a ranking: a busy queue past the cap gains one, an idle one loses it', async () => {
      const engine = new FakeEngine();
      let nowMs = 0;
      const metrics = new NudgeMetrics({
        store,
        engine: engine as never,
        maxQueueLabels: 2,
        statusCountMaxAgeMs: 0,
        processMetrics: false,
        clock: () => nowMs,
      });
      try {
        const succeeded = async () => {
          const text = parsePrometheusText(await metrics.scrape());
          return new Map(
            text.samples
              .filter((s) => s.name === 'nudge_jobs_succeeded_total')
              .map((s) => [s.labels.queue ?? '', s.value]),
          );
        };
        let id = 0;
        const run = (queue: string, times: number) => {
          for (let n = 0; n < times; n += 1) engine.ran((id += 1), queue);
        };
        run('first', 1);
        run('second', 1);
        run('busy', 50);
        assert.deepEqual(
          await succeeded(),
          new Map([
            ['first', 1],
            ['second', 1],
            [OTHER_LABEL, 50],
          ]),
        );
        // The window ends: `busy` was the busiest, `second` as busy as `first`, which had it first.
        run('second', 1);
        nowMs += LABEL_RERANK_MS;
        assert.deepEqual(
          await succeeded(),
          new Map([
            ['second', 2],
            [OTHER_LABEL, 50],
          ]),
          'ranked',
        );
        run('busy', 3);
        run('first', 1);
        assert.deepEqual(
          await succeeded(),
          new Map([
            ['second', 2],
            ['busy', 3],
            [OTHER_LABEL, 51],
          ]),
          'busy counts from zero under its own label; first now counts as (other)',
        );
        nowMs += LABEL_RERANK_MS - 1;
        run('first', 10);
        assert.ok((await succeeded()).has('second'), 'no ranking before the interval has passed');
      } finally {
        metrics.close();
      }
    });
  });
}
