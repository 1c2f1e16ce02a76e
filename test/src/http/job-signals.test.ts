// POST /jobs/:id/signals, and what GET /jobs/:id shows of a job's steps and waits, on both dialects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, rawQuery } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

const HOUR_MS = 3_600_000;

for (const dialect of DIALECTS) {
  describe(`POST /jobs/:id/signals: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    const signal = async (id: number | string, payload: unknown) => {
      const response = await t.app.inject({
        method: 'POST',
        url: `/jobs/${id}/signals`,
        payload: payload as object,
      });
      return { status: response.statusCode, body: jsonBody(response) };
    };
    const waitFor = (id: number, name: string, deadline: Date | 'never') =>
      rawQuery(t.db, "UPDATE nudge_jobs SET status = 'WAITING', wait_signal = ?, run_at = ? WHERE id = ?", [
        name,
        deadline !== 'never'
          ? deadline.toISOString()
          : dialect === 'postgres'
            ? 'infinity'
            : '9999-12-31T23:59:59.999Z',
        id,
      ]);

    it('answers 201 with the signal, then 200 with the same signal for a repeat of its signalId', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      const claims = t.claimRequests();
      const first = await signal(job.id, { name: 'approve', payload: { by: 'ada' }, signalId: 'mail-7' });
      assert.equal(first.status, 201);
      assert.deepEqual(
        { ...first.body, id: undefined, createdAt: undefined },
        {
          id: undefined,
          jobId: job.id,
          name: 'approve',
          payload: { by: 'ada' },
          signalId: 'mail-7',
          createdAt: undefined,
        },
      );
      assert.match(String(first.body.createdAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(t.claimRequests(), claims + 1, 'a new signal asks for a claim');
      const repeat = await signal(job.id, {
        name: 'approve',
        payload: { by: 'someone else' },
        signalId: 'mail-7',
      });
      assert.equal(repeat.status, 200);
      assert.deepEqual(repeat.body, first.body);
      assert.equal(t.claimRequests(), claims + 1, 'a repeat asks for nothing');
      const bare = await signal(job.id, { name: 'ping' });
      assert.equal(bare.status, 201);
      assert.equal(bare.body.payload, null);
      assert.equal(bare.body.signalId, null);
    });

    it('releases a job WAITING for the name: PENDING at once', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      await waitFor(job.id, 'approve', new Date(Date.now() + HOUR_MS));
      assert.equal((await signal(job.id, { name: 'other' })).status, 201);
      assert.equal((await t.store.getJob(job.id))?.status, 'WAITING');
      assert.equal((await signal(job.id, { name: 'approve', payload: true })).status, 201);
      const released = await t.store.getJob(job.id);
      assert.equal(released?.status, 'PENDING');
      assert.equal(released?.waitSignal, null);
    });

    it('answers 404 JOB_NOT_FOUND for an unknown job and 409 JOB_STATE_CONFLICT with the status of a finished one', async () => {
      const missing = await signal(987_654, { name: 'approve' });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'JOB_NOT_FOUND');
      const job = await t.store.enqueue({ kind: 'echo' });
      await t.store.cancelJob(job.id);
      const finished = await signal(job.id, { name: 'approve', signalId: 'late' });
      assert.equal(finished.status, 409);
      assert.equal(finished.body.code, 'JOB_STATE_CONFLICT');
      assert.equal(finished.body.status, 'CANCELLED');
      assert.match(String(finished.body.message), /cannot be sent a signal: it is CANCELLED/);
      assert.deepEqual((await t.store.jobSteps(job.id)).signals, []);
    });

    it('answers 400 for a bad body or id, storing nothing', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      const cases: [unknown, string, RegExp][] = [
        [{}, 'INVALID_REQUEST', /\/name is required/],
        [{ name: '' }, 'INVALID_REQUEST', /\/name must be a string of 1 to 200 characters/],
        [{ name: 'x'.repeat(201) }, 'INVALID_REQUEST', /\/name/],
        [{ name: 5 }, 'INVALID_REQUEST', /\/name/],
        [{ name: 'a', signalId: '' }, 'INVALID_REQUEST', /\/signalId/],
        [{ name: 'a', extra: 1 }, 'INVALID_REQUEST', /\/extra is not allowed/],
        [{ name: 'a', payload: { text: 'nul \u0000' } }, 'PAYLOAD_UNSTORABLE', /\/payload.*U\+0000/],
        [{ name: 'a\u0000' }, 'PAYLOAD_UNSTORABLE', /\/name/],
        [
          { name: 'a', payload: JSON.parse('['.repeat(101) + ']'.repeat(101)) as unknown },
          'PAYLOAD_TOO_DEEP',
          /\/payload/,
        ],
      ];
      for (const [body, code, message] of cases) {
        const refused = await signal(job.id, body);
        assert.equal(refused.status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(refused.body.code, code);
        assert.match(String(refused.body.message), message);
      }
      const badId = await signal('0', { name: 'a' });
      assert.equal(badId.status, 400);
      assert.deepEqual((await t.store.jobSteps(job.id)).signals, []);
    });
  });

  describe(`GET /jobs/:id of a job with steps: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    const view = async (id: number) => {
      const response = await t.app.inject({ method: 'GET', url: `/jobs/${id}` });
      assert.equal(response.statusCode, 200, response.body);
      return jsonBody(response);
    };
    const step = (jobId: number, values: unknown[]) =>
      rawQuery(
        t.db,
        `INSERT INTO nudge_job_steps
          (job_id, name, position, type, status, attempt, result, error, started_at, ended_at, wake_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [jobId, ...values],
      );
    const markSteps = (id: number) =>
      rawQuery(
        t.db,
        `UPDATE nudge_jobs SET has_steps = ${dialect === 'postgres' ? 'true' : '1'} WHERE id = ?`,
        [id],
      );

    it('shows no steps or waitingFor for a job without them', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      const shown = await view(job.id);
      assert.equal('steps' in shown, false);
      assert.equal('waitingFor' in shown, false);
      assert.equal('blockedBy' in shown, false);
    });

    it('shows the steps in order, without results, with durations; and the signal a job waits for', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      const t0 = Date.parse('2030-01-01T00:00:00.000Z');
      const at = (ms: number) => new Date(t0 + ms).toISOString();
      await step(job.id, [
        'fetch',
        0,
        'step',
        'SUCCEEDED',
        1,
        '{"big":"result"}',
        null,
        at(0),
        at(1250),
        null,
      ]);
      await step(job.id, ['bad', 1, 'step', 'FAILED', 1, null, 'boom', at(2000), at(2010), null]);
      await step(job.id, ['approve', 2, 'signal', 'WAITING', 2, null, null, at(3000), null, at(HOUR_MS)]);
      await markSteps(job.id);
      const deadline = new Date(t0 + HOUR_MS);
      await rawQuery(
        t.db,
        "UPDATE nudge_jobs SET status = 'WAITING', wait_signal = 'approve', run_at = ? WHERE id = ?",
        [deadline.toISOString(), job.id],
      );
      const shown = await view(job.id);
      assert.deepEqual(shown.steps, [
        {
          name: 'fetch',
          type: 'step',
          status: 'SUCCEEDED',
          attempt: 1,
          startedAt: at(0),
          endedAt: at(1250),
          durationMs: 1250,
          error: null,
          wakeAt: null,
        },
        {
          name: 'bad',
          type: 'step',
          status: 'FAILED',
          attempt: 1,
          startedAt: at(2000),
          endedAt: at(2010),
          durationMs: 10,
          error: 'boom',
          wakeAt: null,
        },
        {
          name: 'approve',
          type: 'signal',
          status: 'WAITING',
          attempt: 2,
          startedAt: at(3000),
          endedAt: null,
          durationMs: null,
          error: null,
          wakeAt: at(HOUR_MS),
        },
      ]);
      assert.deepEqual(shown.waitingFor, { signal: 'approve', deadline: deadline.toISOString() });
    });

    it('shows a wait without a deadline as deadline null', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      await rawQuery(
        t.db,
        "UPDATE nudge_jobs SET status = 'WAITING', wait_signal = 'go', run_at = ? WHERE id = ?",
        [dialect === 'postgres' ? 'infinity' : '9999-12-31T23:59:59.999Z', job.id],
      );
      const shown = await view(job.id);
      assert.deepEqual(shown.waitingFor, { signal: 'go', deadline: null });
      assert.equal(shown.runAt, '9999-12-31T23:59:59.999Z');
      const listed = await t.app.inject({ method: 'GET', url: '/jobs?status=WAITING' });
      assert.equal(listed.statusCode, 200, 'a list of such jobs reads too');
    });

    it('shows the unfinished dependencies a job waits for', async () => {
      const [head, dependent] = await t.store.enqueueMany([
        { kind: 'echo', runAt: new Date(Date.now() + HOUR_MS) },
        { kind: 'echo', dependsOn: [{ index: 0 }] },
      ]);
      assert.ok(head && dependent);
      const shown = await view(dependent.id);
      assert.deepEqual(shown.blockedBy, [head.id]);
      assert.deepEqual(shown.waitingFor, { dependencies: [head.id] });
      assert.equal(
        'waitingFor' in (await view(head.id)),
        false,
        'a SCHEDULED job without a sleep waits for nothing shown',
      );
    });

    it('shows the wake-up time of a sleeping job, and none once it slept and failed since', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      const wake = new Date(Date.now() + HOUR_MS);
      const now = new Date().toISOString();
      await step(job.id, ['first', 0, 'step', 'SUCCEEDED', 1, '1', null, now, now, null]);
      await step(job.id, ['nap', 1, 'sleep', 'SLEEPING', 1, null, null, now, null, wake.toISOString()]);
      await markSteps(job.id);
      await rawQuery(t.db, "UPDATE nudge_jobs SET status = 'SCHEDULED', run_at = ? WHERE id = ?", [
        wake.toISOString(),
        job.id,
      ]);
      const asleep = await view(job.id);
      assert.deepEqual(asleep.waitingFor, { wakeAt: wake.toISOString() });
      assert.equal((asleep.steps as unknown[]).length, 2);
      // Woken, then failed with a backoff: SCHEDULED again, but not for the sleep.
      await rawQuery(t.db, 'UPDATE nudge_jobs SET run_at = ? WHERE id = ?', [
        new Date(wake.getTime() + 30_000).toISOString(),
        job.id,
      ]);
      assert.equal('waitingFor' in (await view(job.id)), false);
    });

    it('shows the steps of a job that only received a signal: none', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      await t.store.sendSignal({ jobId: job.id, name: 'early' });
      const shown = await view(job.id);
      assert.deepEqual(shown.steps, []);
      assert.equal('waitingFor' in shown, false);
    });
  });
}
