import { it } from 'node:test';
import assert from 'node:assert/strict';
import { JOB_STATUSES } from '@nudge/core';
import { buildApp, NudgeMetrics } from '@nudge/http';
import {
  describeEngine,
  parsePrometheusText,
  rawQuery,
  waitForEvent,
  waitUntil,
  type Scrape,
} from '../helpers/index.js';

const KEY = 'metrics-test-key-0123456789';
const auth = { authorization: `Bearer ${KEY}` };

describeEngine('metrics after a run, checked against the database', (t) => {
  it('counts enqueued, claimed, succeeded, failed, retried and cancelled jobs by kind and queue', async () => {
    const engine = await t.engine();
    const metrics = new NudgeMetrics({ store: t.store, engine, statusCountMaxAgeMs: 0 });
    const app = await buildApp({
      store: t.store,
      engine,
      metrics,
      apiKeys: [{ key: KEY, scopes: ['admin'] }],
    });
    engine.start();
    try {
      const post = (url: string, payload?: object) =>
        app.inject({ method: 'POST', url, headers: auth, ...(payload === undefined ? {} : { payload }) });
      for (let i = 0; i < 5; i += 1)
        assert.equal((await post('/jobs', { kind: 'echo', payload: { i } })).statusCode, 201);
      const batch = await post('/jobs/batch', {
        jobs: [
          { kind: 'noop', queue: 'reports' },
          { kind: 'noop', queue: 'reports' },
          { kind: 'noop' },
          { kind: 'fail', maxAttempts: 1 },
          { kind: 'fail', maxAttempts: 2 },
        ],
      });
      assert.equal(batch.statusCode, 201);
      // Same idempotency key twice: one job, counted once.
      for (let i = 0; i < 2; i += 1) await post('/jobs', { kind: 'echo', idempotencyKey: 'once' });
      const later = await post('/jobs', { kind: 'echo', delayMs: 3_600_000 });
      assert.equal((await post(`/jobs/${String(later.json<{ id: number }>().id)}/cancel`)).statusCode, 200);
      for (let i = 0; i < 3; i += 1) assert.equal((await post('/nudge')).statusCode, 202);

      await waitUntil(
        async () => {
          const counts = await t.store.countByStatus();
          // A slot stays busy until its thread's task answers, which can come after the commit
          // of the outcome the counts see (on a loaded host, after the sweep below too).
          const cpu = engine.slots.cpu;
          const idle = cpu === undefined || cpu.free === cpu.total;
          return counts.SUCCEEDED === 9 && counts.FAILED === 2 && idle ? true : undefined;
        },
        20_000,
        25,
        'every job to finish and free its slot',
      );
      await engine.sweepOnce();

      const response = await app.inject({ method: 'GET', url: '/metrics', headers: auth });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      const scrape = parsePrometheusText(response.body);

      const rows = await rawQuery<{
        kind: string;
        queue: string;
        status: string;
        n: number | string;
        attempts: number | string;
      }>(
        t.db,
        'SELECT kind, queue, status, count(*) AS n, sum(attempts) AS attempts FROM nudge_jobs GROUP BY kind, queue, status',
      );
      const db = (filter: (row: (typeof rows)[number]) => boolean, field: 'n' | 'attempts' = 'n') =>
        rows.filter(filter).reduce((sum, row) => sum + Number(row[field]), 0);
      const series = new Set(rows.map((row) => `${row.kind}\u0000${row.queue}`));
      assert.ok(series.size >= 4, 'several kinds and queues');
      for (const key of series) {
        const [kind = '', queue = ''] = key.split('\u0000');
        const labels = { kind, queue };
        const of = (row: (typeof rows)[number]) => row.kind === kind && row.queue === queue;
        const at = `${kind}/${queue}`;
        assert.equal(scrape.sum('nudge_jobs_enqueued_total', labels), db(of), `enqueued ${at}`);
        assert.equal(
          scrape.sum('nudge_jobs_succeeded_total', labels),
          db((r) => of(r) && r.status === 'SUCCEEDED'),
          `succeeded ${at}`,
        );
        assert.equal(
          scrape.sum('nudge_jobs_failed_total', labels),
          db((r) => of(r) && r.status === 'FAILED'),
          `failed ${at}`,
        );
        assert.equal(
          scrape.sum('nudge_jobs_cancelled_total', labels),
          db((r) => of(r) && r.status === 'CANCELLED'),
          `cancelled ${at}`,
        );
        // Every attempt was claimed, ran to an end, and waited once.
        const attempts = db(of, 'attempts');
        assert.equal(scrape.sum('nudge_jobs_claimed_total', labels), attempts, `claimed ${at}`);
        assert.equal(scrape.sum('nudge_job_duration_seconds_count', labels), attempts, `durations ${at}`);
        assert.equal(scrape.sum('nudge_job_wait_seconds_count', labels), attempts, `waits ${at}`);
      }
      // The fail job with two attempts was retried once; failed attempts are attempts of FAILED rows.
      assert.equal(scrape.sum('nudge_jobs_retried_total', { kind: 'fail' }), 1);
      assert.equal(scrape.sum('nudge_jobs_enqueued_total', { kind: 'echo' }), 7);

      const counts = await t.store.countByStatus();
      for (const status of JOB_STATUSES) {
        assert.equal(scrape.sum('nudge_jobs', { status }), counts[status], `nudge_jobs{status="${status}"}`);
      }
      assert.equal(scrape.types.get('nudge_jobs'), 'gauge');
      assert.equal(scrape.sum('nudge_nudges_received_total'), 3);
      assert.ok(scrape.sum('nudge_claim_requests_total') >= 3);
      assert.ok(
        scrape.sum('nudge_claim_requests_coalesced_total') <= scrape.sum('nudge_claim_requests_total'),
      );
      assert.equal(scrape.types.get('nudge_claim_query_duration_seconds'), 'histogram');
      assert.ok(scrape.sum('nudge_claim_query_duration_seconds_count') >= 1);
      assert.ok(scrape.sum('nudge_sweeps_total') >= 1);
      assert.equal(scrape.sum('nudge_jobs_recovered_total'), 0);
      assert.equal(scrape.sum('nudge_threads_lost_total'), 0);
      assert.equal(scrape.sum('nudge_slots_busy', { execution: 'cpu' }), 0);
      assert.equal(scrape.sum('nudge_slots_free', { execution: 'cpu' }), engine.slots.cpu?.total);
      assertHistogramsConsistent(scrape);
      assert.ok(scrape.types.has('process_cpu_user_seconds_total'), 'process metrics');
      assert.ok(scrape.types.has('nodejs_heap_size_used_bytes'), 'Node metrics');
    } finally {
      metrics.close();
      await app.close();
    }
  });

  it('counts jobs recovered from an expired lease, and the sweep', async () => {
    const engine = await t.engine();
    const metrics = new NudgeMetrics({ store: t.store, engine, processMetrics: false });
    try {
      const job = await t.store.enqueue({ kind: 'echo', maxAttempts: 1 });
      const [claimed] = await t.store.claim({
        workerId: 'gone',
        leaseMs: 300,
        groups: [{ kinds: ['echo'], limit: 1 }],
      });
      assert.equal(claimed?.id, job.id);
      await waitUntil(
        async () => ((await engine.sweepOnce()).failed === 1 ? true : undefined),
        5000,
        50,
        'the sweep',
      );
      const scrape = parsePrometheusText(await metrics.scrape());
      assert.equal(
        scrape.sum('nudge_jobs_recovered_total', { kind: 'echo', queue: 'default', outcome: 'failed' }),
        1,
      );
      assert.equal(scrape.sum('nudge_jobs_recovered_total', { outcome: 'requeued' }), 0);
      assert.ok(scrape.sum('nudge_sweeps_total') >= 1);
      assert.equal(scrape.sum('nudge_jobs', { status: 'FAILED' }), 1);
      assert.equal(scrape.types.has('process_cpu_user_seconds_total'), false);
    } finally {
      metrics.close();
    }
  });

  it('counts a thread that dies while idle, and the pool replaces it', async () => {
    const engine = await t.engine({ threads: 1 });
    const metrics = new NudgeMetrics({ store: t.store, engine, processMetrics: false });
    engine.start();
    try {
      const lost = waitForEvent(engine, 'thread:lost');
      const job = await engine.enqueue({ kind: 'exitAfterReturn' });
      assert.deepEqual(await lost, { execution: 'cpu', attempts: 0, terminated: false });
      // The result left the thread before it died: the outcome is written, never lost.
      await waitUntil(async () =>
        (await t.store.getJob(job.id))?.status === 'SUCCEEDED' ? true : undefined,
      );
      const scrape = parsePrometheusText(await metrics.scrape());
      assert.equal(scrape.sum('nudge_threads_lost_total', { execution: 'cpu', cause: 'crashed' }), 1);
      // The replacement thread runs the next job.
      const next = await engine.enqueue({ kind: 'echo' });
      await waitUntil(async () =>
        (await t.store.getJob(next.id))?.status === 'SUCCEEDED' ? true : undefined,
      );
      await waitUntil(() => (engine.slots.cpu?.free === 1 ? true : undefined), 5_000, 10, 'the slot back');
      assert.deepEqual(engine.slots.cpu, { total: 1, free: 1 });
    } finally {
      metrics.close();
    }
  });
});

describeEngine('job logs', (t) => {
  it('carry job id, kind, queue, attempt and version on a final failure and a cancelled attempt', async () => {
    const lines: { level: string; fields: Record<string, unknown>; message: string | undefined }[] = [];
    const record =
      (level: string) =>
      (fields: object, message?: string): void =>
        void lines.push({ level, fields: fields as Record<string, unknown>, message });
    const logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    const engine = await t.engine({ logger });
    engine.start();
    const failing = await engine.enqueue({ kind: 'fail', queue: 'reports', maxAttempts: 1 });
    await waitUntil(async () => ((await t.store.getJob(failing.id))?.status === 'FAILED' ? true : undefined));
    const held = await engine.enqueue({ kind: 'hold', payload: { releaseFile: t.scratch.releaseFile } });
    await waitUntil(async () => ((await t.store.getJob(held.id))?.status === 'RUNNING' ? true : undefined));
    await engine.cancel(held.id);
    const failed = lines.find((l) => l.message === 'job failed for good');
    assert.deepEqual(failed && { ...failed.fields, error: undefined }, {
      jobId: failing.id,
      kind: 'fail',
      queue: 'reports',
      attempt: 1,
      version: 1,
      error: undefined,
    });
    assert.equal(failed?.level, 'warn');
    const cancelled = lines.find((l) => l.message === 'job cancelled: aborting the attempt');
    assert.deepEqual(cancelled?.fields, {
      jobId: held.id,
      kind: 'hold',
      queue: 'default',
      attempt: 1,
      version: 1,
    });
  });

  it('carry the job id and version of an error thrown after its attempt ended, which keeps its success', async () => {
    const lines: { fields: Record<string, unknown>; message: string | undefined }[] = [];
    const record = (fields: object, message?: string): void =>
      void lines.push({ fields: fields as Record<string, unknown>, message });
    const logger = { debug: () => undefined, info: () => undefined, warn: record, error: record };
    const engine = await t.engine({ logger });
    engine.start();
    const job = await engine.enqueue({ kind: 'throwAfterReturn', maxAttempts: 1 });
    const stray = await waitUntil(async () =>
      lines.find(
        (l) => l.message === 'a handler threw after its attempt had ended; the attempt keeps its outcome',
      ),
    );
    assert.deepEqual(stray.fields, { jobId: job.id, version: 1, error: 'thrown after returning' });
    const done = await waitUntil(async () => {
      const row = await t.store.getJob(job.id);
      return row?.status === 'RUNNING' ? undefined : row;
    });
    assert.equal(done?.status, 'SUCCEEDED');
    assert.equal(done?.attempts, 1);
    assert.equal(done?.result, 'returned');
    assert.deepEqual(
      lines.map((l) => l.message).filter((m) => m !== stray.message),
      [],
      'nothing else was logged as a warning or an error',
    );
  });
});

/** Each histogram's buckets are cumulative and its `+Inf` bucket equals its `_count`. */
function assertHistogramsConsistent(scrape: Scrape): void {
  for (const [name, type] of scrape.types) {
    if (type !== 'histogram' || !name.startsWith('nudge_')) continue;
    const buckets = scrape.samples.filter((s) => s.name === `${name}_bucket`);
    const groups = new Map<string, number[]>();
    for (const sample of buckets) {
      const { le: _le, ...rest } = sample.labels;
      const key = JSON.stringify(rest);
      groups.set(key, [...(groups.get(key) ?? []), sample.value]);
      if (sample.labels.le === '+Inf') assert.equal(sample.value, scrape.sum(`${name}_count`, rest), name);
    }
    for (const values of groups.values()) {
      for (let i = 1; i < values.length; i += 1) assert.ok((values[i] ?? 0) >= (values[i - 1] ?? 0), name);
    }
  }
}
