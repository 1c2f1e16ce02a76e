// PostgreSQL LISTEN/NOTIFY: a producer's plain INSERT wakes the instance without POST /nudge and
// long before the poll; the listener recovers from a killed connection; a burst of notifications
// costs a bounded number of claim queries. The poll interval is a minute throughout, so only a
// notification can explain a prompt start.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { Engine } from '@nudge/engine';
import { describeEngine, rawQuery, waitForEvent, waitUntil, type EngineCase } from '../helpers/index.js';

const POLL_MS = 60_000;

/** A started engine whose listener is connected, and the earliest moment its first poll can come. */
interface Listening {
  readonly engine: Engine;
  /** `performance.now()` before which no poll has run since the start: 90% of POLL_MS (jitter). */
  readonly pollNotBefore: number;
}

async function listeningEngine(t: EngineCase): Promise<Listening> {
  const engine = await t.engine({ threads: 1, pollIntervalMs: POLL_MS });
  // The listener's first wake asks for a claim: wait for the end of a claim query begun after
  // the listener was ready (that claim, or one it was folded into), so tests count only their own.
  let ready = false;
  let queriedSinceReady = false;
  engine.once('listen:ready', () => (ready = true));
  const onQuery = (): void => void (queriedSinceReady ||= ready);
  engine.on('claim:query', onQuery);
  const settled = waitForEvent(engine, 'claim:empty', () => queriedSinceReady);
  const pollNotBefore = performance.now() + 0.9 * POLL_MS;
  engine.start();
  await settled;
  engine.off('claim:query', onQuery);
  return { engine, pollNotBefore };
}

/** When each job started (`performance.now()`), recorded from the moment the engine exists. */
function startTimes(engine: Engine): Map<number, number> {
  const times = new Map<number, number>();
  engine.on('job:started', ({ job }: { job: { id: number } }) => times.set(job.id, performance.now()));
  return times;
}

/** Inserts one job with plain SQL, as a producer in any language would, and times its start (ms). */
async function insertAndTimeStart(t: EngineCase, started: Map<number, number>): Promise<number> {
  const before = performance.now();
  const [row] = await rawQuery<{ id: number | string }>(
    t.db,
    `INSERT INTO nudge_jobs (kind, payload) VALUES ('noop', '{}') RETURNING id`,
  );
  const id = Number(row?.id);
  const at = await waitUntil(() => started.get(id), 10_000, 1, `job ${id} to start`);
  return at - before;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

describeEngine(
  'engine: LISTEN/NOTIFY wakes',
  (t) => {
    it('a plain INSERT starts well within the poll interval, without POST /nudge', async (c) => {
      const { engine, pollNotBefore } = await listeningEngine(t);
      const started = startTimes(engine);
      const ms: number[] = [];
      for (let i = 0; i < 50; i += 1) ms.push(await insertAndTimeStart(t, started));
      ms.sort((a, b) => a - b);
      c.diagnostic(
        `INSERT → start: p50 ${percentile(ms, 0.5).toFixed(2)} ms, p99 ${percentile(ms, 0.99).toFixed(2)} ms`,
      );
      assert.ok(performance.now() < pollNotBefore, 'all 50 started before the first poll could run');
    });

    it('after its backend is terminated, the listener reconnects and wakes the instance again', async () => {
      const { engine, pollNotBefore } = await listeningEngine(t);
      const started = startTimes(engine);
      const [listener] = await rawQuery<{ pid: number }>(
        t.db,
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
      );
      assert.ok(listener, 'a backend runs LISTEN');
      const reconnected = waitForEvent<{ reconnected: boolean }>(
        engine,
        'listen:ready',
        (e) => e.reconnected,
      );
      await rawQuery(t.db, 'SELECT pg_terminate_backend($1)', [listener.pid]);
      await reconnected;
      await insertAndTimeStart(t, started);
      assert.ok(performance.now() < pollNotBefore, 'started before the first poll could run');
    });

    it('1,000 notifications in a burst cause at most two claim queries', async () => {
      const { engine } = await listeningEngine(t);
      let wakes = 0;
      let queries = 0;
      engine.on('listen:wake', () => (wakes += 1));
      engine.on('claim:query', () => (queries += 1));
      const passesSoFar = (): number => engine.claimRequests.requested - engine.claimRequests.coalesced;
      const before = passesSoFar();
      // Distinct payloads, so PostgreSQL delivers all 1,000 at the commit instead of folding them.
      await rawQuery(t.db, `SELECT pg_notify('nudge_jobs', g::text) FROM generate_series(1, 1000) AS g`);
      await waitUntil(() => (wakes === 1000 ? true : undefined), 15_000, 5, '1,000 wakes');
      // Each wake's request has run a pass or been folded into one by now; a free slot means each
      // pass runs one query: wait for those, not for a while.
      const passes = passesSoFar() - before;
      await waitUntil(() => (queries >= passes ? true : undefined), 15_000, 5, `${passes} claim queries`);
      assert.ok(passes >= 1 && passes <= 2, `expected 1 or 2 claim passes, got ${passes}`);
      // Wakes that came while a pass ran are owed one more pass, not a request of its own.
      assert.ok(queries <= 2, `expected at most 2 claim queries, got ${queries}`);
    });

    it('stays silent for jobs inserted already claimed or scheduled for later', async () => {
      const { engine } = await listeningEngine(t);
      // A listener of the test's own sees the payloads: notifications reach it in commit order, so
      // whatever the inserts sent comes before the marker sent after them.
      const watcher = new pg.Client({ connectionString: t.db.url });
      await watcher.connect();
      try {
        const heard: string[] = [];
        watcher.on('notification', (n) => heard.push(n.payload ?? ''));
        await watcher.query('LISTEN nudge_jobs');
        await rawQuery(
          t.db,
          `INSERT INTO nudge_jobs (kind, run_at) VALUES ('noop', now() + interval '1 day')`,
        );
        const claimed = await engine.enqueue({ kind: 'noop' });
        assert.equal(claimed.status, 'RUNNING');
        await rawQuery(t.db, `SELECT pg_notify('nudge_jobs', 'marker')`);
        await waitUntil(() => (heard.includes('marker') ? true : undefined), 15_000, 5, 'the marker');
        assert.deepEqual(heard, ['marker'], 'neither insert notified');
      } finally {
        await watcher.end();
      }
    });

    it('with listen off (NUDGE_LISTEN=false), opens no LISTEN connection and no notification wakes it', async () => {
      const quiet = await t.engine({ threads: 1, pollIntervalMs: POLL_MS, listen: false });
      // Recorded and judged after the engine stopped, so nothing is missed or reported late.
      const events: string[] = [];
      for (const name of ['listen:ready', 'listen:wake', 'claim:empty'] as const)
        quiet.on(name, () => events.push(name));
      // A listener of the test's own: once it has a notification, a listener opened at the
      // engine's start (connected before the claim and heartbeat below finished) would have it too.
      const watcher = new pg.Client({ connectionString: t.db.url });
      await watcher.connect();
      try {
        await watcher.query('LISTEN nudge_jobs');
        const { rows } = await watcher.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const firstClaim = waitForEvent(quiet, 'claim:empty');
        const firstBeat = waitForEvent(quiet, 'heartbeat:done');
        quiet.start();
        await Promise.all([firstClaim, firstBeat]);
        const heard = new Promise((resolve) => watcher.once('notification', resolve));
        await rawQuery(
          t.db,
          `INSERT INTO nudge_jobs (kind, run_at) VALUES ('noop', now() + interval '1 day')`,
        );
        await rawQuery(t.db, `SELECT pg_notify('nudge_jobs', 'by hand')`);
        await heard;
        // One more claim round trip after the notification: a wake would have been handled by now.
        const nextClaim = waitForEvent(quiet, 'claim:empty');
        quiet.requestClaim();
        await nextClaim;
        const [listeners] = await rawQuery<{ n: number | string }>(
          t.db,
          `SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> ?`,
          [rows[0]?.pid],
        );
        await quiet.stop();
        assert.equal(Number(listeners?.n), 0, 'no backend of the engine runs LISTEN');
        assert.deepEqual(
          events.filter((name) => name.startsWith('listen:')),
          [],
          'the engine never listened nor woke',
        );
        assert.ok(events.includes('claim:empty'), 'the engine ran its claims');
      } finally {
        await watcher.end();
      }
    });
  },
  ['postgres'],
);
