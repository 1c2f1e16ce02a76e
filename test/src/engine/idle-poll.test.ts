// The safety poll of an idle instance backs off while its new-jobs listener is healthy, and a job
// whose wake-up is lost still starts within the idle poll maximum. Notifications are dropped by
// disabling the trigger that sends them (the listener stays connected and healthy).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Engine } from '@nudge/engine';
import { describeEngine, rawQuery, waitForEvent, type EngineCase } from '../helpers/index.js';

const POLL_MS = 100;
const IDLE_MAX_MS = 800;

/** Safety polls (each runs the promotion) counted over `windowMs` of `engine`. */
async function pollsIn(engine: Engine, windowMs: number): Promise<number> {
  let polls = 0;
  const count = (): void => void (polls += 1);
  engine.on('schedule:done', count);
  await sleep(windowMs);
  engine.off('schedule:done', count);
  return polls;
}

/** A started engine, listening, left idle until its back-off has reached the maximum. */
async function idleEngine(t: EngineCase, listen = true): Promise<Engine> {
  const engine = await t.engine({ threads: 1, pollIntervalMs: POLL_MS, idlePollMaxMs: IDLE_MAX_MS, listen });
  const ready = listen ? waitForEvent(engine, 'listen:ready') : Promise.resolve();
  engine.start();
  await ready;
  // 100 + 200 + 400 + 800 ms (+10 % jitter) after the last sign of work (the start's claim).
  await sleep(1.1 * (POLL_MS + 200 + 400 + IDLE_MAX_MS) + 200);
  return engine;
}

describeEngine('engine: the idle safety poll', (t) => {
  it('backs off to the idle maximum while the listener is healthy, and a sign of work shortens it', async () => {
    const engine = await idleEngine(t);
    // At most one poll per 720 ms (the maximum less jitter): 5 in 3 s, where 100 ms would give 30.
    const idle = await pollsIn(engine, 3000);
    assert.ok(idle <= 5, `${idle} polls in 3 s while idle`);
    engine.requestClaim();
    const woken = await pollsIn(engine, 1000);
    assert.ok(woken >= 2, `${woken} polls in the second after a nudge (100, 200, 400 ms apart)`);
  });

  it('without a listener it keeps the short interval', async () => {
    const engine = await idleEngine(t, false);
    const polls = await pollsIn(engine, 1000);
    assert.ok(polls >= 7, `${polls} polls in 1 s at ${POLL_MS} ms`);
  });
});

describeEngine(
  'engine: a lost notification',
  (t) => {
    it('a row whose notification was dropped starts within the idle poll maximum', async () => {
      const engine = await idleEngine(t);
      await rawQuery(t.db, 'ALTER TABLE nudge_jobs DISABLE TRIGGER nudge_jobs_notify');
      const waits: number[] = [];
      const wakes: string[] = [];
      engine.on('listen:wake', () => wakes.push('wake'));
      for (let i = 0; i < 3; i += 1) {
        const before = performance.now();
        const [row] = await rawQuery<{ id: number | string }>(
          t.db,
          `INSERT INTO nudge_jobs (kind, payload) VALUES ('noop', '{}') RETURNING id`,
        );
        const id = Number(row?.id);
        await waitForEvent(engine, 'job:started', (e: { job: { id: number } }) => e.job.id === id, 5000);
        waits.push(performance.now() - before);
        // Idle again, backed off to the maximum, before the next row.
        await sleep(1.1 * (POLL_MS + 200 + 400 + IDLE_MAX_MS) + 200);
      }
      assert.deepEqual(wakes, [], 'no notification reached the instance');
      // The maximum, its 10 % jitter, and the promotion and claim round trips.
      for (const ms of waits)
        assert.ok(ms <= 1.1 * IDLE_MAX_MS + 300, `a job started ${Math.round(ms)} ms late`);
    });
  },
  ['postgres'],
);
