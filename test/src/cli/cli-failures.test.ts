// How `nudge` fails: one line on stderr that says what to fix, and a non-zero exit code.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTcpProxy, createTestDatabase, type TcpProxy, type TestDatabase } from '../helpers/index.js';
import { runCli } from './run-cli.js';

const oneLine = (text: string): void =>
  assert.match(text, /^nudge: [^\n]+\n$/, `one line: ${JSON.stringify(text)}`);

describe('nudge failures', () => {
  let db: TestDatabase;
  let pgDb: TestDatabase;
  let proxy: TcpProxy;
  before(async () => {
    db = await createTestDatabase('sqlite');
    pgDb = await createTestDatabase('postgres');
    const target = new URL(pgDb.url);
    proxy = await createTcpProxy(target.hostname, Number(target.port || 5432));
  });
  after(async () => {
    await proxy.close();
    await pgDb.drop();
    await db.drop();
  });

  it('a bad argument: exit 2 and one line naming it', async () => {
    for (const args of [
      ['status', 'abc'],
      ['list', '--limit', '500'],
      ['list', '--status', 'DONE'],
      ['frobnicate'],
      ['enqueue', 'k', '--bogus'],
      ['prune', '--retention', 'DONE=1d'],
      ['prune', '--retention', 'SUCCEEDED=soon'],
    ]) {
      const run = await runCli(args, { DATABASE_URL: db.url });
      assert.equal(run.code, 2, args.join(' '));
      oneLine(run.stderr);
      assert.equal(run.stdout, '');
    }
    const prune = await runCli(['prune', '--retention', 'DONE=1d'], { DATABASE_URL: db.url });
    assert.match(
      prune.stderr,
      /^nudge: --retention "DONE=1d" names status "DONE"; use SUCCEEDED, FAILED, CANCELLED/,
    );
    const status = await runCli(['status', 'abc'], { DATABASE_URL: db.url });
    assert.equal(
      status.stderr,
      'nudge: <id> must be a job id, a whole number from 1 (got "abc") (see nudge --help)\n',
    );
  });

  it('a bad job or configuration: exit 1 and one line saying what to fix', async () => {
    const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [['enqueue', 'k', '{nope'], {}, /^nudge: the payload is not valid JSON .*: quote it/],
      [
        ['enqueue', 'k', '--priority', '5000'],
        {},
        /^nudge: INVALID_REQUEST: \/priority must be an integer from -1000 to 1000 \(got 5000\)\n$/,
      ],
      [
        ['enqueue', 'k', '--run-at', 'tomorrow'],
        {},
        /^nudge: INVALID_REQUEST: \/runAt must be a date-time from 1970 to 9999 with a time zone/,
      ],
      [
        ['enqueue', '--file', '/nonexistent/jobs.ndjson'],
        {},
        /^nudge: cannot read \/nonexistent\/jobs\.ndjson: .*check the --file path\n$/,
      ],
      [
        ['stats'],
        { NUDGE_LEASE_MS: 'long' },
        /^nudge: INVALID_CONFIG: NUDGE_LEASE_MS must be a whole number of ms/,
      ],
      [
        ['prune'],
        { NUDGE_RETENTION: 'FAILED=forever' },
        /^nudge: INVALID_CONFIG: NUDGE_RETENTION is invalid: retention: the age in "FAILED=forever" must be a duration/,
      ],
      [
        ['stats'],
        { DATABASE_URL: 'mysql://x/y' },
        /^nudge: INVALID_CONFIG: DATABASE_URL must be postgres:\/\//,
      ],
    ];
    for (const [args, env, message] of cases) {
      const run = await runCli(args, { DATABASE_URL: db.url, ...env });
      assert.equal(run.code, 1, args.join(' '));
      oneLine(run.stderr);
      assert.match(run.stderr, message);
    }
  });

  it('an unreachable PostgreSQL: exit 1, one line naming the URL without its password and DATABASE_URL', async () => {
    const refused = await runCli(['stats'], {
      DATABASE_URL: 'postgres://nudge:secret@127.0.0.1:1/jobs',
      NUDGE_DB_CONNECT_TIMEOUT_MS: '1000',
    });
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      'nudge: cannot reach the database at postgres://nudge:***@127.0.0.1:1/jobs: connection refused; check DATABASE_URL\n',
    );
    await proxy.setMode('blackhole');
    const silent = await runCli(['list'], {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/x`,
      NUDGE_DB_CONNECT_TIMEOUT_MS: '500',
    });
    assert.equal(silent.code, 1);
    oneLine(silent.stderr);
    assert.match(
      silent.stderr,
      /^nudge: cannot reach the database at postgres:\/\/postgres@127\.0\.0\.1:\d+\/x: .*; check DATABASE_URL\n$/,
    );
  });

  it('exits as soon as it is done on PostgreSQL (every connection closed)', async () => {
    const url = pgDb.url;
    // A query timer or connection left open would keep the process alive for the whole timeout;
    // half of it is the bound, so the CLI's own work has 30 s of margin.
    const dbTimeoutMs = 60_000;
    const started = performance.now();
    const run = await runCli(['migrate', 'status'], {
      DATABASE_URL: url,
      NUDGE_DB_TIMEOUT_MS: String(dbTimeoutMs),
    });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(
      performance.now() - started < dbTimeoutMs / 2,
      'no connection or query timer kept the process alive',
    );
  });
});
