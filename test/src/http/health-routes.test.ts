import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`GET /healthz: ${dialect}`, () => {
    it('answers 200 ok, even before migrations', async () => {
      const t = await createTestApp(dialect, { migrate: false });
      try {
        const response = await t.app.inject({ method: 'GET', url: '/healthz' });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(jsonBody(response), { status: 'ok' });
      } finally {
        await t.close();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`GET /readyz: ${dialect}`, () => {
    it('answers 200 ready with the schema versions after migrate', async () => {
      const t = await createTestApp(dialect);
      try {
        const response = await t.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(response.statusCode, 200);
        const { applied, latest } = await t.store.schemaState();
        assert.ok(latest >= 1);
        assert.deepEqual(jsonBody(response), { status: 'ready', schema: { applied, latest } });
      } finally {
        await t.close();
      }
    });

    it('answers 503 NOT_READY on a fresh, unmigrated database', async () => {
      const t = await createTestApp(dialect, { migrate: false });
      try {
        const response = await t.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(response.statusCode, 503);
        const body = jsonBody(response);
        assert.equal(body.code, 'NOT_READY');
        assert.equal(body.error, 'Service Unavailable');
        assert.match(String(body.message), /schema is at version 0 of \d+: apply the migrations/);
      } finally {
        await t.close();
      }
    });

    it('answers 503 NOT_READY when the database does not answer', async () => {
      const t = await createTestApp(dialect);
      try {
        await t.store.close();
        const response = await t.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(response.statusCode, 503);
        assert.equal(jsonBody(response).code, 'NOT_READY');
        assert.match(String(jsonBody(response).message), /database does not answer/);
      } finally {
        await t.close();
      }
    });
  });
}
