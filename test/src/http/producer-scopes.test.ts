import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apiKeyId, type ApiKey } from '@nudge/http';
import { DIALECTS, rawQuery } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

const ADMIN = 'admin-key-0123456789abcdef';
const PRODUCER = 'producer-key-0123456789ab';
const ENQUEUER = 'enqueuer-key-0123456789ab';
const OTHER_ENQUEUER = 'other-enqueuer-key-012345';
const KEYS: ApiKey[] = [
  { key: ADMIN, scopes: ['admin'] },
  { key: PRODUCER, scopes: ['enqueue', 'read'] },
  { key: ENQUEUER, scopes: ['enqueue'] },
  { key: OTHER_ENQUEUER, scopes: ['enqueue'] },
];
const HOUR_MS = 3_600_000;
const SECRET = { password: 'hunter2' };

/** The fields a dedupe hit shows a key without `read`, and nothing else. */
const HIT_FIELDS = ['created', 'id', 'status'];

for (const dialect of DIALECTS) {
  describe(`a producer cannot read or change another producer's job through an enqueue: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { apiKeys: KEYS });
    });
    after(async () => t.close());

    const post = (key: string, payload: object, url = '/jobs') =>
      t.app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${key}` } });
    const enqueuedBy = async (id: unknown): Promise<string | null> => {
      const [row] = await rawQuery<{ enqueued_by: string | null }>(
        t.db,
        `SELECT enqueued_by FROM nudge_jobs WHERE id = ${Number(id)}`,
      );
      assert.ok(row, `job ${String(id)} exists`);
      return row.enqueued_by;
    };

    it('an idempotency-key hit shows an enqueue-only key the id and status only; read and admin keys see the job', async () => {
      const created = await post(ADMIN, { kind: 'echo', payload: SECRET, idempotencyKey: 'order-1' });
      assert.equal(created.statusCode, 201, created.body);
      const id = jsonBody(created).id;
      const hit = await post(ENQUEUER, { kind: 'echo', idempotencyKey: 'order-1' });
      assert.equal(hit.statusCode, 200, hit.body);
      assert.deepEqual(jsonBody(hit), { id, status: 'PENDING', created: false });
      assert.doesNotMatch(hit.body, /hunter2/);
      assert.equal(hit.headers.location, `/jobs/${String(id)}`);
      for (const reader of [PRODUCER, ADMIN]) {
        const full = await post(reader, { kind: 'echo', idempotencyKey: 'order-1' });
        assert.equal(full.statusCode, 200);
        assert.deepEqual(jsonBody(full).payload, SECRET, 'a key with read sees the whole job');
      }
      assert.equal(await enqueuedBy(id), apiKeyId(ADMIN), "the admin key's id, never the key");
    });

    it('a throttle hit, and both kinds of hit inside a batch, show the same to an enqueue-only key', async () => {
      const window = { kind: 'echo', payload: SECRET, throttle: { key: 'acct-9', windowMs: HOUR_MS } };
      const opened = await post(ADMIN, window);
      assert.equal(opened.statusCode, 201, opened.body);
      const id = jsonBody(opened).id;
      const hit = await post(ENQUEUER, { ...window, payload: {} });
      assert.equal(hit.statusCode, 200);
      assert.deepEqual(Object.keys(jsonBody(hit)).sort(), HIT_FIELDS);
      await post(ADMIN, { kind: 'echo', payload: SECRET, idempotencyKey: 'order-2' });
      const batch = await post(
        ENQUEUER,
        {
          jobs: [
            { kind: 'echo', idempotencyKey: 'order-2' },
            { kind: 'echo', throttle: { key: 'acct-9', windowMs: HOUR_MS } },
            { kind: 'echo', payload: { mine: true } },
          ],
        },
        '/jobs/batch',
      );
      assert.equal(batch.statusCode, 201, batch.body);
      assert.doesNotMatch(batch.body, /hunter2/);
      const [keyed, throttled, fresh] = jsonBody(batch).jobs as Record<string, unknown>[];
      assert.deepEqual(Object.keys(keyed ?? {}).sort(), HIT_FIELDS);
      assert.deepEqual(throttled, { id, status: 'PENDING', created: false });
      assert.equal(fresh?.created, true);
      assert.deepEqual(fresh?.payload, { mine: true }, 'a job the batch created is shown whole');
      assert.equal(await enqueuedBy(fresh?.id), apiKeyId(ENQUEUER));
      const asReader = await post(
        PRODUCER,
        { jobs: [{ kind: 'echo', idempotencyKey: 'order-2' }] },
        '/jobs/batch',
      );
      assert.deepEqual((jsonBody(asReader).jobs as Record<string, unknown>[])[0]?.payload, SECRET);
    });

    it("a debounce replaces only the same key's job, or any job for an admin key; another key gets 409 naming the owner", async () => {
      const debounce = { key: 'doc-1', delayMs: 60_000 };
      const created = await post(ENQUEUER, { kind: 'echo', payload: { v: 1 }, debounce });
      assert.equal(created.statusCode, 201, created.body);
      const id = Number(jsonBody(created).id);
      const own = await post(ENQUEUER, { kind: 'echo', payload: { v: 2 }, debounce });
      assert.equal(own.statusCode, 200, own.body);
      assert.deepEqual(jsonBody(own), { id, status: 'SCHEDULED', created: false });
      assert.deepEqual((await t.store.getJob(id))?.payload, { v: 2 }, 'the same key replaced its payload');
      const runAt = (await t.store.getJob(id))?.runAt.getTime();
      for (const other of [OTHER_ENQUEUER, PRODUCER]) {
        const refused = await post(other, { kind: 'echo', payload: { v: 'x' }, debounce });
        assert.equal(refused.statusCode, 409, refused.body);
        assert.equal(jsonBody(refused).code, 'DEBOUNCE_OWNED_BY_OTHER_KEY');
        assert.match(
          String(jsonBody(refused).message),
          new RegExp(`job ${id} .*\\(${apiKeyId(ENQUEUER)}\\)`),
        );
        assert.doesNotMatch(refused.body, new RegExp(ENQUEUER));
      }
      const batch = await post(
        OTHER_ENQUEUER,
        {
          jobs: [
            { kind: 'echo', payload: { v: 'y' } },
            { kind: 'echo', debounce },
          ],
        },
        '/jobs/batch',
      );
      assert.equal(batch.statusCode, 409, batch.body);
      assert.equal(jsonBody(batch).code, 'DEBOUNCE_OWNED_BY_OTHER_KEY');
      const kept = await t.store.getJob(id);
      assert.deepEqual(kept?.payload, { v: 2 }, 'no other key changed the payload');
      assert.equal(kept?.runAt.getTime(), runAt, 'nor moved the start');
      const jobs = await t.store.listJobs({ limit: 100 });
      assert.ok(
        !jobs.some((job) => JSON.stringify(job.payload) === '{"v":"y"}'),
        'the refused batch wrote nothing',
      );
      const byAdmin = await post(ADMIN, { kind: 'echo', payload: { v: 3 }, debounce });
      assert.equal(byAdmin.statusCode, 200, byAdmin.body);
      assert.deepEqual(jsonBody(byAdmin).payload, { v: 3 }, 'an admin key replaces any key’s job');
      assert.equal(await enqueuedBy(id), apiKeyId(ENQUEUER), 'the job stays its producer’s');
    });
  });
}
