import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NudgeError } from '@nudge/core';
import { loadConfig } from './config.js';
import { startConfiguredServer, startServer, type RunningServer } from './start-server.js';

// The libraries name their options (`schedules: …`, `apiKeys`); a server read from the
// environment names the variables instead, and one started with options names the options.

const KEY = 'reader-key-0123456789abcdef';
const SCHEDULE = { name: 'nightly', cron: '0 3 * * *', kind: 'echo' };

describe('setting names in messages', () => {
  let dir: string;
  let handlers: string;
  let env: NodeJS.ProcessEnv;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-setting-names-'));
    handlers = join(dir, 'handlers.mjs');
    writeFileSync(
      handlers,
      `export async function echo(payload) { return payload; }\nexport const schedules = ${JSON.stringify([SCHEDULE])};\n`,
    );
    env = {
      DATABASE_URL: `sqlite:${join(dir, 'nudge.db')}`,
      NUDGE_HANDLERS: handlers,
      NUDGE_THREADS: '1',
      PORT: '0',
      LOG_LEVEL: 'silent',
    };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Asserts that starting rejects with `INVALID_CONFIG` (option `schedules`) and `message`. */
  const refused = (start: Promise<RunningServer>, message: string) =>
    assert.rejects(start, (error: unknown) => {
      assert.ok(error instanceof NudgeError, String(error));
      assert.deepEqual([error.code, error.option, error.message], ['INVALID_CONFIG', 'schedules', message]);
      return true;
    });

  it('a schedule the handler module declares too: NUDGE_SCHEDULES from the environment, schedules from options', async () => {
    const clash = [{ ...SCHEDULE, cron: '0 4 * * *' }];
    const problem = 'schedule "nightly" is declared in the handler module too; rename one of them';
    await refused(
      startConfiguredServer(loadConfig({ ...env, NUDGE_SCHEDULES: JSON.stringify(clash) })),
      `NUDGE_SCHEDULES: ${problem}`,
    );
    await refused(
      startServer({
        handlers,
        databaseUrl: env.DATABASE_URL,
        port: 0,
        threads: 1,
        logLevel: 'silent',
        schedules: clash,
      }),
      `schedules: ${problem}`,
    );
    await refused(
      startServer({
        handlers,
        databaseUrl: env.DATABASE_URL,
        port: 0,
        logLevel: 'silent',
        engine: { threads: 1, schedules: clash },
      }),
      `engine.schedules: ${problem}`,
    );
  });

  it('a schedule of a kind the handler module lacks names NUDGE_SCHEDULES', async () => {
    const other = JSON.stringify([{ name: 'weekly', cron: '0 3 * * 1', kind: 'report' }]);
    await refused(
      startConfiguredServer(loadConfig({ ...env, NUDGE_SCHEDULES: other })),
      'NUDGE_SCHEDULES: schedule "weekly": kind "report" is not handled here (kinds: echo)',
    );
  });

  for (const [source, keysName] of [
    ['the environment', 'NUDGE_API_KEYS'],
    ['options', 'apiKeys'],
  ] as const) {
    it(`an unknown API key, and the API's documentation, name ${keysName} when started from ${source}`, async () => {
      const server =
        source === 'options'
          ? await startServer({
              handlers,
              databaseUrl: env.DATABASE_URL,
              port: 0,
              threads: 1,
              logLevel: 'silent',
              apiKeys: `${KEY}:read`,
            })
          : await startConfiguredServer(loadConfig({ ...env, NUDGE_API_KEYS: `${KEY}:read` }));
      try {
        const refusal = await server.app.inject({
          method: 'GET',
          url: '/jobs',
          headers: { authorization: 'Bearer not-a-key-0123456789' },
        });
        assert.equal(refusal.statusCode, 401);
        assert.equal(
          (JSON.parse(refusal.body) as { message: string }).message,
          `the API key is not valid: send one of the keys configured in ${keysName}`,
        );
        const docs = await server.app.inject({
          method: 'GET',
          url: '/docs/json',
          headers: { authorization: `Bearer ${KEY}` },
        });
        const scheme = (
          JSON.parse(docs.body) as { components: { securitySchemes: { apiKey: { description: string } } } }
        ).components.securitySchemes.apiKey;
        assert.equal(scheme.description, `A key configured in ${keysName}.`);
      } finally {
        await server.close();
      }
    });
  }
});
