import { it } from 'node:test';
import assert from 'node:assert/strict';
import { NudgeError } from '@nudge/core';
import type { CronRunResult, CronSchedule } from '@nudge/engine';
import { buildApp } from '@nudge/http';
import {
  createEngine,
  describeEngine,
  openStore,
  rawQuery,
  waitForEvent,
  waitUntil,
  type EngineCase,
} from '../helpers/index.js';

const HOURLY: CronSchedule = { name: 'hourly', cron: '0 * * * *', kind: 'echo', payload: { n: 1 } };
const at = (iso: string) => new Date(iso);

/** Jobs of `kind`, with their idempotency keys, oldest first. */
async function jobsOf(t: EngineCase, kind = 'echo') {
  return rawQuery<{ id: number; idempotency_key: string | null }>(
    t.db,
    `SELECT id, idempotency_key FROM nudge_jobs WHERE kind = '${kind}' ORDER BY id`,
  );
}

describeEngine('recurring jobs (cron)', (t) => {
  it('two instances create exactly one job per tick', async () => {
    // Each instance on its own store (on SQLite, its own connection), as two processes would be.
    const otherStore = await openStore(t.db);
    const a = await t.engine({ schedules: [HOURLY] });
    const b = await createEngine(otherStore, { schedules: [HOURLY] });
    try {
      await Promise.all([a.cronOnce(at('2026-05-01T10:30:00Z')), b.cronOnce(at('2026-05-01T10:30:00Z'))]);
      assert.equal((await jobsOf(t)).length, 0, 'a new schedule does not run its past ticks');
      const ticks: Array<[string, number]> = [
        ['2026-05-01T11:00:00.500Z', 1],
        ['2026-05-01T12:00:01Z', 1],
        ['2026-05-01T12:00:02Z', 0],
      ];
      for (const [now, expected] of ticks) {
        const results = await Promise.all([a.cronOnce(at(now)), b.cronOnce(at(now))]);
        const created = results.flatMap((r) => r.ticks).filter((tick) => tick.created);
        assert.equal(created.length, expected, `${now}: ${expected} job(s) created across both instances`);
      }
    } finally {
      await b.stop();
      await otherStore.close();
    }
    assert.deepEqual(
      (await jobsOf(t)).map((job) => job.idempotency_key),
      ['hourly@2026-05-01T11:00:00.000Z', 'hourly@2026-05-01T12:00:00.000Z'],
    );
    const [schedule] = await t.store.listSchedules();
    assert.equal(schedule?.lastTickAt.toISOString(), '2026-05-01T12:00:00.000Z');
    assert.equal(schedule?.nextTickAt?.toISOString(), '2026-05-01T13:00:00.000Z');
  });

  it('after downtime runs the latest missed tick once, or none with missed: skip', async () => {
    const latest = await t.engine({ schedules: [HOURLY, { ...HOURLY, name: 'skipper', missed: 'skip' }] });
    await latest.cronOnce(at('2026-05-01T10:30:00Z'));
    // Down from 10:30 to 13:45: the 11:00, 12:00 and 13:00 ticks were missed.
    const run = await latest.cronOnce(at('2026-05-01T13:45:00Z'));
    assert.deepEqual(
      run.ticks.map((tick) => [tick.schedule, tick.tickAt.toISOString(), tick.created]),
      [['hourly', '2026-05-01T13:00:00.000Z', true]],
    );
    assert.equal(run.skipped, 2 + 3);
    assert.deepEqual(
      (await jobsOf(t)).map((job) => job.idempotency_key),
      ['hourly@2026-05-01T13:00:00.000Z'],
    );
  });

  it('never enqueues a tick again, even after its job was deleted or the instance restarted', async () => {
    const first = await t.engine({ schedules: [HOURLY] });
    await first.cronOnce(at('2026-05-01T10:30:00Z'));
    await first.cronOnce(at('2026-05-01T11:00:05Z'));
    assert.equal((await jobsOf(t)).length, 1);
    await rawQuery(t.db, `DELETE FROM nudge_jobs WHERE kind = 'echo'`);
    assert.deepEqual((await first.cronOnce(at('2026-05-01T11:00:30Z'))).ticks, []);
    const restarted = await t.engine({ schedules: [HOURLY] });
    assert.deepEqual((await restarted.cronOnce(at('2026-05-01T11:30:00Z'))).ticks, []);
    assert.equal((await jobsOf(t)).length, 0);
    assert.equal((await restarted.cronOnce(at('2026-05-01T12:00:10Z'))).ticks.length, 1);
  });

  it('runs on its timer by the database clock, and GET /schedules lists the schedule', async () => {
    const engine = await t.engine({
      schedules: [{ name: 'every-second', cron: '* * * * * *', kind: 'echo' }],
    });
    const app = await buildApp({ store: t.store, engine });
    try {
      engine.start();
      const run = await waitForEvent<CronRunResult>(engine, 'cron:done', (r) => r.ticks.length > 0, 10_000);
      const [tick] = run.ticks;
      assert.ok(tick);
      await waitUntil(async () =>
        (await t.store.getJob(tick.jobId))?.status === 'SUCCEEDED' ? true : undefined,
      );
      const body = (await app.inject({ method: 'GET', url: '/schedules' })).json<{
        schedules: Array<{ name: string; cron: string; timezone: string; kind: string; lastTickAt: string }>;
      }>();
      assert.deepEqual(
        body.schedules.map((s) => [s.name, s.cron, s.timezone, s.kind]),
        [['every-second', '* * * * * *', 'UTC', 'echo']],
      );
      assert.ok(Date.parse(body.schedules[0]?.lastTickAt ?? '') >= tick.tickAt.getTime());
    } finally {
      await app.close();
    }
  });

  it('reads the schedules the handler module exports, and refuses bad ones at start', async () => {
    const scheduled = new URL('../fixtures/handlers-scheduled.js', import.meta.url).href;
    const engine = await createEngine(t.store, { handlers: scheduled });
    try {
      assert.deepEqual(
        engine.schedules.map((s) => [s.name, s.cron, s.timezone, s.kind]),
        [['hourly-echo', '0 * * * *', 'Europe/Paris', 'echo']],
      );
      await engine.cronOnce(at('2026-05-01T10:30:00Z'));
      const run = await engine.cronOnce(at('2026-05-01T11:00:01Z'));
      const job = await t.store.getJob(run.ticks[0]?.jobId ?? 0);
      assert.deepEqual([job?.kind, job?.payload], ['echo', { from: 'cron' }]);
    } finally {
      await engine.stop();
    }
    const bad = new URL('../fixtures/handlers-scheduled-bad.js', import.meta.url).href;
    await assert.rejects(
      createEngine(t.store, { handlers: bad }),
      (error: NudgeError) =>
        error.code === 'HANDLERS_INVALID' &&
        /the handler module: schedule "nightly": kind "report" is not handled here/.test(error.message),
    );
    await assert.rejects(
      createEngine(t.store, { handlers: scheduled, schedules: [{ ...HOURLY, name: 'hourly-echo' }] }),
      (error: NudgeError) =>
        error.code === 'INVALID_CONFIG' &&
        error.option === 'schedules' &&
        error.message ===
          'schedules: schedule "hourly-echo" is declared in the handler module too; rename one of them',
    );
  });
});
