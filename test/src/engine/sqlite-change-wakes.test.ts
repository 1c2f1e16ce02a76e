// On SQLite the engine's new-jobs listener is the store's PRAGMA data_version watcher: a plain
// INSERT from another connection (a producer in another process) starts without POST /nudge and
// long before the poll. The poll interval is a minute, so only a wake can explain a prompt start.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ClaimWatch, describeEngine, rawQuery, waitForEvent, waitUntil } from '../helpers/index.js';

const POLL_MS = 60_000;

describeEngine(
  'engine: SQLite wakes on another connection’s commit',
  (t) => {
    it('a plain INSERT from another connection starts well within the poll interval, without POST /nudge', async () => {
      const engine = await t.engine({ threads: 1, pollIntervalMs: POLL_MS });
      const claims = new ClaimWatch(engine);
      const ready = waitForEvent<{ reconnected: boolean }>(engine, 'listen:ready');
      const firstClaim = waitForEvent(engine, 'claim:empty');
      // 90% of the interval: the earliest a jittered poll can come.
      const pollNotBefore = performance.now() + 0.9 * POLL_MS;
      engine.start();
      assert.equal((await ready).reconnected, false);
      await firstClaim;
      let wakes = 0;
      engine.on('listen:wake', () => (wakes += 1));
      // Each job's start, as the number of wakes before it.
      const started = new Map<number, number>();
      engine.on('job:started', ({ job }: { job: { id: number } }) => started.set(job.id, wakes));
      const succeeded = new Set<number>();
      engine.on('job:succeeded', ({ id }: { id: number }) => succeeded.add(id));
      for (let i = 0; i < 5; i += 1) {
        // The last job finished and the claim its freed slot asked for came back empty: nothing
        // but a wake (or the poll) claims the next one.
        await claims.settled();
        const wakesBefore = wakes;
        const [row] = await rawQuery<{ id: number }>(
          t.db,
          `INSERT INTO nudge_jobs (kind, payload) VALUES ('noop', '{}') RETURNING id`,
        );
        const id = Number(row?.id);
        const wakesAtStart = await waitUntil(() => started.get(id), 10_000, 5, `job ${id} to start`);
        assert.ok(wakesAtStart > wakesBefore, `job ${id} started after a wake that followed its INSERT`);
        await waitUntil(() => (succeeded.has(id) ? true : undefined), 10_000, 5, `job ${id} to succeed`);
      }
      assert.ok(performance.now() < pollNotBefore, 'all five started before the first poll could run');
    });
  },
  ['sqlite'],
);
