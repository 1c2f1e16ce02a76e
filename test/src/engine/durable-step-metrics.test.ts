// The durable-step metrics after a run, checked against the step rows and what the run did:
// steps recorded by outcome, sleeps and signal waits by kind, signals sent, waits timed out.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp, NudgeMetrics } from '@nudge/http';
import {
  describeEngine,
  DURABLE_HANDLERS,
  parsePrometheusText,
  rawQuery,
  waitUntil,
} from '../helpers/index.js';

const KEY = 'metrics-test-key-0123456789';
const auth = { authorization: `Bearer ${KEY}` };

describeEngine('durable-step metrics after a run, checked against the database', (t) => {
  it('counts steps by outcome, sleeps, signal waits, signals sent and timed-out waits', async () => {
    const engine = await t.engine({ handlers: DURABLE_HANDLERS, threads: 2 });
    const metrics = new NudgeMetrics({ store: t.store, engine, statusCountMaxAgeMs: 0 });
    const app = await buildApp({
      store: t.store,
      engine,
      metrics,
      apiKeys: [{ key: KEY, scopes: ['admin'] }],
    });
    const ledger = join(t.scratch.dir, 'ledger');
    const fixedFile = join(t.scratch.dir, 'fixed');
    const post = async (url: string, payload: object) => {
      const response = await app.inject({ method: 'POST', url, headers: auth, payload });
      assert.ok(response.statusCode < 300, response.body);
      return response.json<{ id: number }>();
    };
    engine.start();
    try {
      const failing = await post('/jobs', { kind: 'flow', payload: { ledger, fixedFile } });
      const sleeping = await post('/jobs', { kind: 'asyncFlow', payload: { ledger, sleepMs: 200 } });
      const waiting = await post('/jobs', { kind: 'flow', payload: { ledger, signal: 'go' } });
      const timing = await post('/jobs', {
        kind: 'flow',
        payload: { ledger, signal: 'never', timeoutMs: 100 },
      });
      await waitUntil(
        () =>
          existsSync(ledger) && readFileSync(ledger, 'utf8').includes(`${failing.id} b`) ? true : undefined,
        20_000,
        10,
        'step b to fail once',
      );
      writeFileSync(fixedFile, '');
      await waitUntil(async () =>
        (await t.store.getJob(waiting.id))?.status === 'WAITING' ? true : undefined,
      );
      await post(`/jobs/${waiting.id}/signals`, { name: 'go', payload: { ok: true } });
      await waitUntil(
        async () => ((await t.store.countByStatus()).SUCCEEDED === 4 ? true : undefined),
        20_000,
        25,
        'every job to succeed',
      );
      const scrape = parsePrometheusText(
        (await app.inject({ method: 'GET', url: '/metrics', headers: auth })).body,
      );
      const rows = await rawQuery<{ status: string; n: number | string }>(
        t.db,
        `SELECT status, count(*) AS n FROM nudge_job_steps WHERE type = 'step' GROUP BY status`,
      );
      const stepRows = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
      // Four jobs each finished steps a and b. The failing job's b failed first: counted as a
      // failure, its row then replaced by the success.
      assert.equal(stepRows('SUCCEEDED'), 8);
      assert.equal(scrape.sum('nudge_steps_recorded_total', { outcome: 'succeeded' }), 8);
      assert.ok(scrape.sum('nudge_steps_recorded_total', { outcome: 'failed' }) >= 1);
      assert.equal(scrape.sum('nudge_steps_recorded_total', { outcome: 'fenced' }), 0);
      assert.equal(scrape.sum('nudge_job_sleeps_total', { kind: 'asyncFlow' }), 1);
      assert.equal(scrape.sum('nudge_job_signal_waits_total', { kind: 'flow' }), 2);
      assert.equal(scrape.sum('nudge_signals_sent_total'), 1);
      assert.equal(scrape.sum('nudge_signal_wait_timeouts_total'), 1);
      assert.equal(((await t.store.getJob(timing.id))?.result as { got: unknown }).got, null);
      assert.equal((await t.store.getJob(sleeping.id))?.attempts, 1);
    } finally {
      await app.close();
    }
  });
});
