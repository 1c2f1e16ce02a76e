import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`operator routes: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    it('lists the instance registry with live flags, and the stats with live instances only', async () => {
      const now = await t.store.now();
      await t.store.registerInstance(
        {
          id: 'w1',
          host: 'h',
          pid: 10,
          kinds: ['echo'],
          version: '0.1.0',
          queues: [{ name: 'default' }, { name: 'emails', cap: 2 }],
          slots: { cpu: 4 },
        },
        now,
      );
      await t.store.registerInstance(
        { id: 'w0', host: 'h', pid: 9, kinds: [] },
        new Date(now.getTime() - 181_000),
      );
      await t.app.inject({ method: 'POST', url: '/jobs', payload: { kind: 'echo', queue: 'emails' } });

      const instances = await t.app.inject({ method: 'GET', url: '/instances' });
      assert.equal(instances.statusCode, 200);
      assert.deepEqual(jsonBody(instances), {
        instances: [
          {
            id: 'w0',
            host: 'h',
            pid: 9,
            version: null,
            kinds: [],
            queues: [{ name: '*' }],
            slots: {},
            startedAt: new Date(now.getTime() - 181_000).toISOString(),
            lastSeenAt: new Date(now.getTime() - 181_000).toISOString(),
            live: false,
          },
          {
            id: 'w1',
            host: 'h',
            pid: 10,
            version: '0.1.0',
            kinds: ['echo'],
            queues: [{ name: 'default' }, { name: 'emails', cap: 2 }],
            slots: { cpu: 4 },
            startedAt: now.toISOString(),
            lastSeenAt: now.toISOString(),
            live: true,
          },
        ],
      });

      const stats = await t.app.inject({ method: 'GET', url: '/stats' });
      assert.equal(stats.statusCode, 200);
      const body = jsonBody(stats);
      const zero = {
        WAITING: 0,
        SCHEDULED: 0,
        PENDING: 0,
        RUNNING: 0,
        SUCCEEDED: 0,
        FAILED: 0,
        CANCELLED: 0,
      };
      assert.deepEqual(body.byStatus, { ...zero, PENDING: 1 });
      assert.deepEqual(body.byKind, { echo: { ...zero, PENDING: 1 } });
      assert.deepEqual(body.byQueue, { emails: { ...zero, PENDING: 1 } });
      assert.equal(typeof body.oldestPendingAgeMs, 'number');
      assert.deepEqual(body.lastHour, { succeeded: 0, failed: 0 });
      assert.equal(body.failureRateLastHour, null);
      assert.deepEqual(
        (body.instances as Array<{ id: string }>).map((i) => i.id),
        ['w1'],
      );
      assert.match(String(body.at), /^\d{4}-\d\d-\d\dT/);
    });
  });
}
