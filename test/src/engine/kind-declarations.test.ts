import { it } from 'node:test';
import assert from 'node:assert/strict';
import { NudgeError } from '@nudge/core';
import { Engine } from '@nudge/engine';
import { buildApp, type NudgeHttpApp } from '@nudge/http';
import { describeEngine, rawQuery, waitForEvent, waitUntil, type EngineCase } from '../helpers/index.js';

/** `file:` URL of the handler module declared with `defineHandlers`. */
const TYPED_HANDLERS = new URL('../fixtures/handlers-typed.js', import.meta.url).href;

/** A started-or-not engine on the typed handlers and the HTTP app over it. */
async function typedApp(
  t: EngineCase,
  options: Parameters<EngineCase['engine']>[0] = {},
): Promise<{ engine: Engine; app: NudgeHttpApp }> {
  const engine = await t.engine({ handlers: TYPED_HANDLERS, ...options });
  const app = await buildApp({ store: t.store, engine });
  return { engine, app };
}

async function rowCount(t: EngineCase): Promise<number> {
  const [row] = await rawQuery<{ n: number | string }>(t.db, 'SELECT count(*) AS n FROM nudge_jobs');
  return Number(row?.n);
}

const body = (response: { body: string }) => JSON.parse(response.body) as Record<string, unknown>;

describeEngine('engine: kinds declared with defineHandlers, through the HTTP API', (t) => {
  it('POST /jobs refuses a payload that fails its kind schema with PAYLOAD_INVALID and its JSON Pointer', async () => {
    const { app } = await typedApp(t);
    await t.store.enqueue({ kind: 'plain' });
    const cases: Array<[unknown, string]> = [
      [{ to: 5 }, '/payload/to must be string (got 5)'],
      [{}, '/payload/to is required'],
      [{ to: 'nope' }, '/payload/to must match format "email" (got "nope")'],
      [{ to: 'a@example.com', bcc: 'x' }, '/payload/bcc is not allowed'],
      [{ to: 'a@example.com', cc: ['b', 7] }, '/payload/cc/1 must be string (got 7)'],
      [[1], '/payload must be object (got [1])'],
    ];
    for (const [payload, message] of cases) {
      const response = await app.inject({
        method: 'POST',
        url: '/jobs',
        payload: { kind: 'sendEmail', payload },
      });
      assert.equal(response.statusCode, 400, response.body);
      assert.deepEqual(body(response), {
        statusCode: 400,
        code: 'PAYLOAD_INVALID',
        error: 'Bad Request',
        message,
      });
    }
    // An omitted payload is `{}`, which this schema refuses too.
    const omitted = await app.inject({ method: 'POST', url: '/jobs', payload: { kind: 'report' } });
    assert.equal(body(omitted).message, '/payload/day is required');
    assert.equal(await rowCount(t), 1, 'nothing was written');
  });

  it('POST /jobs accepts a matching payload (201), and the handler gets it typed', async () => {
    const { engine, app } = await typedApp(t);
    engine.start();
    const response = await app.inject({
      method: 'POST',
      url: '/jobs',
      payload: { kind: 'sendEmail', payload: { to: 'a@example.com', cc: ['b@example.com'] } },
    });
    assert.equal(response.statusCode, 201, response.body);
    const id = Number(body(response).id);
    const job = await waitUntil(async () => {
      const found = await t.store.getJob(id);
      return found?.status === 'SUCCEEDED' ? found : undefined;
    });
    assert.deepEqual(job.result, { sentTo: 'a@example.com', copies: 1 });
  });

  it('POST /jobs/batch names the invalid job by index with PAYLOAD_INVALID and writes nothing', async () => {
    const { app } = await typedApp(t);
    const response = await app.inject({
      method: 'POST',
      url: '/jobs/batch',
      payload: {
        jobs: [
          { kind: 'report', payload: { day: 3 } },
          { kind: 'report', payload: { day: 40 } },
          { kind: 'sendEmail', payload: { to: 'a@example.com' } },
        ],
      },
    });
    assert.equal(response.statusCode, 400, response.body);
    const answer = body(response);
    assert.equal(answer.code, 'INVALID_BATCH');
    assert.deepEqual(answer.errors, [
      { index: 1, code: 'PAYLOAD_INVALID', message: '/payload/day must be <= 31 (got 40)' },
    ]);
    assert.match(String(answer.message), /\/jobs\/1\/payload\/day must be <= 31/);
    assert.equal(await rowCount(t), 0);
  });

  it('applies the kind’s maxAttempts and queue when the producer gives none, on every enqueue path', async () => {
    const { engine, app } = await typedApp(t);
    assert.deepEqual(
      { ...engine.kindInfo('report'), schema: undefined },
      { kind: 'report', execution: 'cpu', maxAttempts: 2, queue: 'reports', schema: undefined },
    );
    assert.deepEqual(engine.kindInfo('report')?.schema, {
      type: 'object',
      properties: { day: { type: 'integer', minimum: 1, maximum: 31 } },
      required: ['day'],
    });
    assert.equal(engine.kindInfo('nope'), undefined);
    const single = await app.inject({
      method: 'POST',
      url: '/jobs',
      payload: { kind: 'report', payload: { day: 1 } },
    });
    const own = await app.inject({
      method: 'POST',
      url: '/jobs',
      payload: { kind: 'report', payload: { day: 2 }, maxAttempts: 7 },
    });
    const batch = await app.inject({
      method: 'POST',
      url: '/jobs/batch',
      payload: {
        jobs: [
          { kind: 'report', payload: { day: 3 } },
          { kind: 'plain', maxAttempts: 3 },
        ],
      },
    });
    const direct = await engine.enqueue({ kind: 'report', payload: { day: 4 } });
    const ids = [
      body(single).id,
      body(own).id,
      ...(body(batch).jobs as Array<{ id: number }>).map((j) => j.id),
      direct.id,
    ];
    const jobs = await Promise.all(ids.map(async (id) => t.store.getJob(Number(id))));
    assert.deepEqual(
      jobs.map((j) => [j?.maxAttempts, j?.queue]),
      [
        [2, 'reports'],
        [7, 'reports'],
        [2, 'reports'],
        [3, 'default'],
        [2, 'reports'],
      ],
    );
    // A plain-SQL insert knows nothing of the handler module: the column defaults apply.
    await rawQuery(t.db, `INSERT INTO nudge_jobs (kind, payload) VALUES ('report', '{"day": 5}')`);
    const [row] = await rawQuery<{ max_attempts: number; queue: string }>(
      t.db,
      'SELECT max_attempts, queue FROM nudge_jobs ORDER BY id DESC LIMIT 1',
    );
    assert.deepEqual({ ...row }, { max_attempts: 5, queue: 'default' });
  });

  it('Engine.enqueue refuses a payload that fails the schema with PAYLOAD_INVALID', async () => {
    const { engine } = await typedApp(t);
    await assert.rejects(engine.enqueue({ kind: 'sendEmail', payload: { to: 1 } }), (error: unknown) => {
      assert.ok(error instanceof NudgeError);
      assert.equal(error.code, 'PAYLOAD_INVALID');
      assert.equal(error.message, '/payload/to must be string (got 1)');
      return true;
    });
    assert.equal(await rowCount(t), 0);
  });

  it('delayMs schedules from the database clock; with runAt it is refused naming both', async () => {
    const { app } = await typedApp(t);
    const before = await t.store.now();
    const delayed = await app.inject({
      method: 'POST',
      url: '/jobs',
      payload: { kind: 'plain', delayMs: 60_000 },
    });
    const after = await t.store.now();
    assert.equal(delayed.statusCode, 201, delayed.body);
    assert.equal(body(delayed).status, 'SCHEDULED');
    const runAt = Date.parse(String(body(delayed).runAt));
    assert.ok(
      runAt >= before.getTime() + 60_000 && runAt <= after.getTime() + 60_000,
      String(body(delayed).runAt),
    );
    const both = await app.inject({
      method: 'POST',
      url: '/jobs',
      payload: { kind: 'plain', delayMs: 10, runAt: '2030-01-01T00:00:00Z' },
    });
    assert.equal(both.statusCode, 400);
    assert.equal(body(both).code, 'INVALID_REQUEST');
    assert.match(String(body(both).message), /^\/runAt and \/delayMs cannot both be given/);
    const tooLong = await app.inject({
      method: 'POST',
      url: '/jobs',
      payload: { kind: 'plain', delayMs: 365 * 24 * 3_600_000 + 1 },
    });
    assert.equal(body(tooLong).code, 'INVALID_REQUEST');
    assert.match(
      String(body(tooLong).message),
      /^\/delayMs must be a whole number of ms from 0 to 31536000000/,
    );
    const batch = await app.inject({
      method: 'POST',
      url: '/jobs/batch',
      payload: {
        jobs: [
          { kind: 'plain', delayMs: 5000 },
          { kind: 'plain', delayMs: 5, runAt: '2030-01-01T00:00:00Z' },
        ],
      },
    });
    assert.equal(batch.statusCode, 400);
    assert.deepEqual(
      (body(batch).errors as Array<{ index: number; code: string }>).map((e) => [e.index, e.code]),
      [[1, 'INVALID_REQUEST']],
    );
    assert.equal(await rowCount(t), 1, 'only the first delayed job');
    const good = await app.inject({
      method: 'POST',
      url: '/jobs/batch',
      payload: {
        jobs: [
          { kind: 'plain', delayMs: 5000 },
          { kind: 'plain', delayMs: 0 },
        ],
      },
    });
    assert.deepEqual(
      (body(good).jobs as Array<{ status: string }>).map((j) => j.status),
      ['SCHEDULED', 'PENDING'],
    );
  });

  it('a delayed job is never started by the enqueueing instance, though a slot is free', async () => {
    const { engine } = await typedApp(t, { pollIntervalMs: 60_000, listen: false });
    // Wait until no claim holds the slots (a pass holds every free slot while it runs), so that
    // an enqueue may take one.
    const allFree = (): boolean =>
      Object.values(engine.slots).every((counts) => counts === undefined || counts.free === counts.total);
    const settled = async (): Promise<void> => {
      await waitForEvent(engine, 'claim:empty');
      await waitUntil(() => (allFree() ? true : undefined), 15_000, 1, 'every slot to be free');
    };
    let idle = settled();
    engine.start();
    await idle;
    idle = settled();
    assert.ok(allFree(), 'a slot is free for the enqueue to take');
    const job = await engine.enqueue({ kind: 'plain', delayMs: 30_000 });
    assert.equal(job.status, 'SCHEDULED');
    assert.equal(job.claimedBy, null);
    await idle;
    assert.ok(allFree(), 'a slot is free for the enqueue to take');
    const now = await engine.enqueue({ kind: 'plain', delayMs: 0 });
    assert.equal(now.status, 'RUNNING', 'an undelayed one is taken at once');
  });

  it('a kind with timeoutMs 200 times out while a kind under the engine timeout does not', async () => {
    const { engine } = await typedApp(t, { jobTimeoutMs: 60_000 });
    assert.equal(engine.timeoutFor('quick'), 200);
    assert.equal(engine.timeoutFor('patient'), 60_000);
    const quick = await t.store.enqueue({ kind: 'quick', payload: { ms: 1500 }, maxAttempts: 1 });
    const patient = await t.store.enqueue({ kind: 'patient', payload: { ms: 600 }, maxAttempts: 1 });
    engine.start();
    const [q, p] = await waitUntil(async () => {
      const jobs = await Promise.all([t.store.getJob(quick.id), t.store.getJob(patient.id)]);
      return jobs.every((j) => j?.status === 'FAILED' || j?.status === 'SUCCEEDED') ? jobs : undefined;
    });
    assert.equal(q?.status, 'FAILED');
    assert.match(String(q?.lastError), /^timed out after 200 ms/);
    assert.equal(p?.status, 'SUCCEEDED', String(p?.lastError));
  });

  it('retries a kind on its declared backoff, unless the engine option backoffByKind overrides it', async () => {
    const { engine } = await typedApp(t);
    // Merged over the engine's curve (baseMs 100, maxMs 1000 in the fixture): the kind's wins.
    assert.deepEqual(engine.backoffFor('flaky'), { baseMs: 20_000, maxMs: 60_000, jitterRatio: 0 });
    assert.equal(engine.backoffFor('plain').baseMs, 100);
    const job = await t.store.enqueue({ kind: 'flaky', maxAttempts: 3 });
    const failed = waitForEvent<{ id: number; status: string; retryDelayMs: number }>(
      engine,
      'job:failed',
      (e) => e.id === job.id,
    );
    engine.start();
    const event = await failed;
    assert.equal(event.status, 'SCHEDULED');
    assert.equal(event.retryDelayMs, 20_000);
    const stored = await t.store.getJob(job.id);
    const wait = (stored?.runAt.getTime() ?? 0) - (await t.store.now()).getTime();
    assert.ok(wait > 15_000 && wait <= 20_000, `retry in ${wait} ms`);

    const overridden = await t.engine({ handlers: TYPED_HANDLERS, backoffByKind: { flaky: { baseMs: 50 } } });
    assert.deepEqual(overridden.backoffFor('flaky'), { baseMs: 50, maxMs: 1000, jitterRatio: 0 });
  });

  it('fails for good, without running the handler, a job inserted by plain SQL whose payload fails the schema', async () => {
    const { engine } = await typedApp(t);
    await rawQuery(t.db, `INSERT INTO nudge_jobs (kind, payload) VALUES ('sendEmail', '{"to": 5}')`);
    await rawQuery(
      t.db,
      `INSERT INTO nudge_jobs (kind, payload) VALUES ('sendEmail', '{"to": "a@example.com"}')`,
    );
    engine.start();
    const jobs = await waitUntil(async () => {
      const list = await t.store.listJobs({ limit: 10 });
      return list.every((j) => j.status === 'FAILED' || j.status === 'SUCCEEDED') ? list : undefined;
    });
    const [good, bad] = jobs;
    assert.equal(good?.status, 'SUCCEEDED');
    assert.equal(bad?.status, 'FAILED');
    assert.equal(bad?.attempts, 1, 'not retried');
    assert.equal(bad?.maxAttempts, 5);
    assert.equal(
      bad?.lastError,
      'the payload does not match the schema of kind "sendEmail": /payload/to must be string (got 5)',
    );
  });
});

describeEngine(
  'engine: wrong kind declarations',
  (t) => {
    it('refuses to start with HANDLERS_INVALID naming the kind and the field', async () => {
      const cases: Array<[string, RegExp]> = [
        ['maxAttempts', /kind "report": maxAttempts must be a whole number from 1 to 1000 \(got 0\)/],
        ['timeoutMs', /kind "quick": timeoutMs must be a whole number from 1 to 2147483647 \(got 1\.5\)/],
        ['queue', /kind "report": queue must be a queue name: .* \(got ""\)/],
        ['backoff', /kind "flaky": backoff\.baseMs must be a finite number >= 0 \(got -1\)/],
        ['backoffField', /kind "flaky": backoff has unknown field base/],
        ['schema', /kind "sendEmail": schema is not a valid JSON Schema/],
        ['unknownField', /kind "sendEmail": unknown field maxAttempt/],
        [
          'youngGeneration',
          /kind "report": maxYoungGenerationSizeMb must be a whole number from 1 to 1024 \(got 0\)/,
        ],
        [
          'youngGenerationAsync',
          /kind "sendEmail": maxYoungGenerationSizeMb applies to cpu kinds only \(this kind is async\)/,
        ],
      ];
      const url = new URL('../fixtures/handlers-typed-bad.js', import.meta.url);
      for (const [variant, message] of cases) {
        url.searchParams.set('variant', variant);
        await assert.rejects(t.engine({ handlers: url.href }), (error: unknown) => {
          assert.ok(error instanceof NudgeError, String(error));
          assert.equal(error.code, 'HANDLERS_INVALID');
          assert.match(error.message, message);
          return true;
        });
      }
    });
  },
  ['sqlite'],
);
