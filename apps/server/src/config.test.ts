import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NudgeError } from '@nudge/core';
import { DEFAULT_RETENTION } from '@nudge/engine';
import { loadConfig, loadDatabaseConfig } from './config.js';

const dir = mkdtempSync(join(tmpdir(), 'nudge-config-'));
const handlers = join(dir, 'handlers.mjs');
writeFileSync(handlers, 'export async function echo(p) { return p; }\n');
after(() => rmSync(dir, { recursive: true, force: true }));

/** `loadConfig` on `env` plus a valid `NUDGE_HANDLERS`, from the temp folder. */
const load = (env: NodeJS.ProcessEnv) => loadConfig({ NUDGE_HANDLERS: handlers, ...env }, dir);

/** Asserts `env` is refused with `INVALID_CONFIG` and a one-line message naming `variable`. */
function assertInvalid(env: NodeJS.ProcessEnv, variable: string, message?: RegExp): void {
  assert.throws(
    () => load(env),
    (error: unknown) => {
      assert.ok(error instanceof NudgeError);
      assert.equal(error.code, 'INVALID_CONFIG');
      assert.ok(error.message.startsWith(`${variable} `), error.message);
      assert.doesNotMatch(error.message, /\n/);
      if (message) assert.match(error.message, message);
      return true;
    },
  );
}

describe('loadConfig', () => {
  it('fills every default', () => {
    assert.deepEqual(load({}), {
      databaseUrl: 'sqlite:./data/nudge.db',
      dialect: 'sqlite',
      handlers,
      threads: Math.min(1024, availableParallelism()),
      asyncThreads: 1,
      asyncConcurrency: 100,
      maxClaimBatch: 500,
      cpuThreadNice: 10,
      queues: [{ name: '*' }],
      host: '127.0.0.1',
      port: 3000,
      pollIntervalMs: 1000,
      claimCooldownMs: 10,
      idlePollMaxMs: 30000,
      listen: true,
      listenUrl: undefined,
      pgPreparedStatements: undefined,
      leaseMs: 30_000,
      sweepIntervalMs: 5000,
      jobTimeoutMs: 300_000,
      abortGraceMs: 1000,
      shutdownGraceMs: 10_000,
      unhandledKindGraceMs: 300_000,
      schedules: [],
      retention: DEFAULT_RETENTION,
      pruneIntervalMs: 60_000,
      logLinesPerJob: 1000,
      logBytesPerJob: 1_048_576,
      logFlushWaitMs: 1000,
      dbTimeoutMs: 10_000,
      dbConnectTimeoutMs: 5000,
      maxOldGenerationSizeMb: 512,
      bodyLimitBytes: 1_048_576,
      apiKeys: [],
      allowUnauthenticated: false,
      rateLimitPerMinute: 6000,
      metricsMaxQueues: 100,
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const config = load({
      DATABASE_URL: 'sqlite:/var/lib/nudge/jobs.db',
      NUDGE_THREADS: '3',
      NUDGE_ASYNC_THREADS: '2',
      NUDGE_ASYNC_CONCURRENCY: '250',
      NUDGE_MAX_CLAIM_BATCH: '50',
      NUDGE_CPU_THREAD_NICE: '0',
      NUDGE_QUEUES: 'default, emails:4,reports:2',
      HOST: '0.0.0.0',
      PORT: '0',
      NUDGE_POLL_INTERVAL_MS: '250',
      NUDGE_CLAIM_COOLDOWN_MS: '0',
      NUDGE_LISTEN: 'false',
      NUDGE_LISTEN_URL: 'postgres://nudge@db-primary:5432/jobs',
      NUDGE_PG_PREPARED_STATEMENTS: 'false',
      NUDGE_LEASE_MS: '300',
      NUDGE_SWEEP_INTERVAL_MS: '700',
      NUDGE_JOB_TIMEOUT_MS: '60000',
      NUDGE_ABORT_GRACE_MS: '10',
      NUDGE_SHUTDOWN_GRACE_MS: '0',
      NUDGE_UNHANDLED_KIND_GRACE_MS: '0',
      NUDGE_SCHEDULES: '[{"name":"nightly","cron":"0 3 * * *","timezone":"Europe/Paris","kind":"report"}]',
      NUDGE_RETENTION: 'SUCCEEDED=2h, report:SUCCEEDED=30d,audit:FAILED=keep,CANCELLED=0',
      NUDGE_PRUNE_INTERVAL_MS: '0',
      NUDGE_LOG_LINES_PER_JOB: '50',
      NUDGE_LOG_BYTES_PER_JOB: '4096',
      NUDGE_LOG_FLUSH_WAIT_MS: '0',
      NUDGE_DB_TIMEOUT_MS: '2000',
      NUDGE_DB_CONNECT_TIMEOUT_MS: '1500',
      NUDGE_MAX_OLD_GENERATION_MB: '128',
      NUDGE_BODY_LIMIT_BYTES: '2048',
      NUDGE_API_KEYS: 'admin-key-0123456789abcdef:admin, producer-key-0123456789:enqueue+read',
      NUDGE_ALLOW_UNAUTHENTICATED: 'false',
      NUDGE_RATE_LIMIT_PER_MINUTE: '120',
      NUDGE_METRICS_MAX_QUEUES: '20',
      LOG_LEVEL: 'debug',
    });
    assert.deepEqual(config, {
      databaseUrl: 'sqlite:/var/lib/nudge/jobs.db',
      dialect: 'sqlite',
      handlers,
      threads: 3,
      asyncThreads: 2,
      asyncConcurrency: 250,
      maxClaimBatch: 50,
      cpuThreadNice: 0,
      queues: [{ name: 'default' }, { name: 'emails', cap: 4 }, { name: 'reports', cap: 2 }],
      host: '0.0.0.0',
      port: 0,
      pollIntervalMs: 250,
      claimCooldownMs: 0,
      idlePollMaxMs: 30000,
      listen: false,
      listenUrl: 'postgres://nudge@db-primary:5432/jobs',
      pgPreparedStatements: false,
      leaseMs: 300,
      sweepIntervalMs: 700,
      jobTimeoutMs: 60_000,
      abortGraceMs: 10,
      shutdownGraceMs: 0,
      unhandledKindGraceMs: 0,
      schedules: [{ name: 'nightly', cron: '0 3 * * *', timezone: 'Europe/Paris', kind: 'report' }],
      retention: {
        byStatus: { SUCCEEDED: 7_200_000, FAILED: 14 * 86_400_000, CANCELLED: 0 },
        byKind: new Map([
          ['report', { SUCCEEDED: 30 * 86_400_000 }],
          ['audit', { FAILED: null }],
        ]),
      },
      pruneIntervalMs: 0,
      logLinesPerJob: 50,
      logBytesPerJob: 4096,
      logFlushWaitMs: 0,
      dbTimeoutMs: 2000,
      dbConnectTimeoutMs: 1500,
      maxOldGenerationSizeMb: 128,
      bodyLimitBytes: 2048,
      apiKeys: [
        { key: 'admin-key-0123456789abcdef', scopes: ['admin'] },
        { key: 'producer-key-0123456789', scopes: ['enqueue', 'read'] },
      ],
      allowUnauthenticated: false,
      rateLimitPerMinute: 120,
      metricsMaxQueues: 20,
      logLevel: 'debug',
    });
  });

  it('refuses bad NUDGE_SCHEDULES, naming the schedule and the field', () => {
    for (const [text, message] of [
      ['{nope', /^NUDGE_SCHEDULES is invalid: .*JSON/],
      ['{}', /^NUDGE_SCHEDULES is invalid: schedules: schedules must be an array/],
      [
        '[{"name":"a","cron":"61 * * * *","kind":"k"}]',
        /^NUDGE_SCHEDULES is invalid: schedules: schedule "a": cron "61 \* \* \* \*" in UTC is invalid/,
      ],
      [
        '[{"name":"a","cron":"0 3 * * *","timezone":"Mars/Base","kind":"k"}]',
        /schedule "a": cron "0 3 \* \* \*" in Mars\/Base is invalid/,
      ],
    ] as const) {
      assert.throws(
        () => load({ NUDGE_SCHEDULES: text }),
        (error: NudgeError) => error.code === 'INVALID_CONFIG' && message.test(error.message),
        text,
      );
    }
  });

  it('refuses a bad NUDGE_RETENTION, naming the entry', () => {
    assert.throws(
      () => load({ NUDGE_RETENTION: 'SUCCEEDED=1d,FAILED=soon' }),
      (error: NudgeError) =>
        error.code === 'INVALID_CONFIG' &&
        error.message ===
          'NUDGE_RETENTION is invalid: retention: the age in "FAILED=soon" must be a duration such as 90s, 15m, 12h, 7d, or keep',
    );
  });

  it('treats empty and blank values as unset', () => {
    const config = load({ PORT: '', NUDGE_THREADS: '  ', LOG_LEVEL: '', DATABASE_URL: '' });
    assert.equal(config.port, 3000);
    assert.equal(config.threads, Math.min(1024, availableParallelism()));
    assert.equal(config.logLevel, 'info');
    assert.equal(config.databaseUrl, 'sqlite:./data/nudge.db');
  });

  it('selects PostgreSQL for postgres:// and postgresql:// URLs', () => {
    for (const url of ['postgres://nudge@db.internal:5432/jobs', 'postgresql://u:p@127.0.0.1/test']) {
      const config = load({ DATABASE_URL: url });
      assert.equal(config.dialect, 'postgres');
      assert.equal(config.databaseUrl, url);
    }
  });

  it('selects SQLite for sqlite:, file: and bare paths', () => {
    for (const url of ['sqlite:./x.db', 'sqlite:///abs/x.db', 'file:x.db', './x.db', '/abs/x.db']) {
      assert.equal(load({ DATABASE_URL: url }).dialect, 'sqlite', url);
    }
  });

  it('resolves a relative NUDGE_HANDLERS against the working directory', () => {
    assert.equal(loadConfig({ NUDGE_HANDLERS: 'handlers.mjs' }, dir).handlers, handlers);
    assert.equal(loadConfig({ NUDGE_HANDLERS: './handlers.mjs' }, dir).handlers, handlers);
  });

  it('requires NUDGE_HANDLERS', () => {
    assertInvalid({ NUDGE_HANDLERS: '' }, 'NUDGE_HANDLERS', /is required/);
  });

  it('refuses a NUDGE_HANDLERS that names no file', () => {
    assertInvalid({ NUDGE_HANDLERS: 'missing.js' }, 'NUDGE_HANDLERS', /names no file/);
  });

  const invalid: [string, string, RegExp][] = [
    ['NUDGE_THREADS', 'abc', /^NUDGE_THREADS must be a whole number from 1 to 1024 \(got "abc"\)$/],
    ['NUDGE_THREADS', '0', /from 1 to 1024 \(got "0"\)/],
    ['NUDGE_THREADS', '1025', /from 1 to 1024/],
    ['NUDGE_THREADS', '2.5', /whole number/],
    ['NUDGE_THREADS', '-1', /whole number/],
    ['NUDGE_ASYNC_THREADS', '0', /^NUDGE_ASYNC_THREADS must be a whole number from 1 to 1024/],
    ['NUDGE_ASYNC_CONCURRENCY', '100001', /from 1 to 100000/],
    ['NUDGE_MAX_CLAIM_BATCH', 'all', /from 1 to 10000/],
    ['NUDGE_CPU_THREAD_NICE', '20', /^NUDGE_CPU_THREAD_NICE must be a whole number from 0 to 19/],
    [
      'NUDGE_QUEUES',
      'emails:0',
      /^NUDGE_QUEUES is invalid: queues: the cap of "emails" must be a whole number from 1/,
    ],
    ['NUDGE_QUEUES', 'a b', /^NUDGE_QUEUES is invalid: queues: "a b" is not a queue name/],
    ['NUDGE_QUEUES', '*:3', /^NUDGE_QUEUES is invalid: queues: '\*' takes no cap/],
    ['NUDGE_DB_TIMEOUT_MS', '50', /^NUDGE_DB_TIMEOUT_MS must be a whole number of ms from 100/],
    ['PORT', '65536', /^PORT must be a whole number from 0 to 65535/],
    ['PORT', 'http', /PORT must be/],
    ['NUDGE_POLL_INTERVAL_MS', '0', /whole number of ms from 1/],
    [
      'NUDGE_CLAIM_COOLDOWN_MS',
      '60001',
      /^NUDGE_CLAIM_COOLDOWN_MS must be a whole number of ms from 0 to 60000/,
    ],
    ['NUDGE_LISTEN', 'yes', /^NUDGE_LISTEN must be true or false \(got "yes"\)$/],
    [
      'NUDGE_LISTEN_URL',
      'db-primary:5432',
      /^NUDGE_LISTEN_URL must be a postgres:\/\/ URL of the same database, not through a pooler \(got "db-primary:5432"\)$/,
    ],
    [
      'NUDGE_PG_PREPARED_STATEMENTS',
      'off',
      /^NUDGE_PG_PREPARED_STATEMENTS must be true or false \(unset: true unless a transaction pooler is found at start\) \(got "off"\)$/,
    ],
    ['NUDGE_LEASE_MS', '299', /^NUDGE_LEASE_MS must be a whole number of ms from 300/],
    ['NUDGE_SWEEP_INTERVAL_MS', '1e3', /whole number of ms/],
    ['NUDGE_JOB_TIMEOUT_MS', '2147483648', /to 2147483647/],
    ['NUDGE_SHUTDOWN_GRACE_MS', '-5', /whole number of ms from 0/],
    ['NUDGE_MAX_OLD_GENERATION_MB', '8', /whole number of MB from 16/],
    ['NUDGE_BODY_LIMIT_BYTES', '0', /whole number of bytes from 1/],
    [
      'NUDGE_API_KEYS',
      'short:admin',
      /^NUDGE_API_KEYS is invalid: entry 1: the key has 5 characters; use at least 16/,
    ],
    ['NUDGE_API_KEYS', '0123456789abcdef0:root', /^NUDGE_API_KEYS is invalid: entry 1: unknown scope "root"/],
    ['NUDGE_API_KEYS', '0123456789abcdef0', /^NUDGE_API_KEYS is invalid: entry 1 must be KEY:SCOPE/],
    [
      'NUDGE_API_KEYS',
      '0123456789abcdef0:read,0123456789abcdef0:admin',
      /^NUDGE_API_KEYS is invalid: entry 2: the key is listed twice/,
    ],
    ['NUDGE_ALLOW_UNAUTHENTICATED', 'yes', /^NUDGE_ALLOW_UNAUTHENTICATED must be true or false/],
    ['NUDGE_RATE_LIMIT_PER_MINUTE', '-1', /^NUDGE_RATE_LIMIT_PER_MINUTE must be a whole number from 0/],
    [
      'LOG_LEVEL',
      'loud',
      /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(got "loud"\)$/,
    ],
    ['DATABASE_URL', 'mysql://root@db/jobs', /^DATABASE_URL must be postgres:\/\/.*sqlite:PATH/],
    ['DATABASE_URL', 'sqlite:', /DATABASE_URL must be/],
  ];
  for (const [variable, value, message] of invalid) {
    it(`refuses ${variable}=${value}`, () => assertInvalid({ [variable]: value }, variable, message));
  }

  it('listens on a loopback HOST without keys', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.1.2.3']) {
      assert.deepEqual(load({ HOST: host }).apiKeys, [], host);
    }
  });

  it('refuses a non-loopback HOST without keys, saying what to set', () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'nudge.internal']) {
      assertInvalid(
        { HOST: host },
        'HOST',
        /^HOST is ".*" but NUDGE_API_KEYS is empty: set NUDGE_API_KEYS .* or NUDGE_ALLOW_UNAUTHENTICATED=true/,
      );
    }
  });

  it('serves other hosts with keys, or without them when explicitly allowed', () => {
    assert.equal(load({ HOST: '0.0.0.0', NUDGE_API_KEYS: '0123456789abcdef0:read' }).host, '0.0.0.0');
    const open = load({ HOST: '0.0.0.0', NUDGE_ALLOW_UNAUTHENTICATED: 'true' });
    assert.equal(open.allowUnauthenticated, true);
    assert.deepEqual(open.apiKeys, []);
  });

  it('never shows an API key in a refusal', () => {
    assert.throws(
      () => load({ NUDGE_API_KEYS: 'secret-secret-secret:root' }),
      (e: Error) => e instanceof NudgeError && !e.message.includes('secret-secret'),
    );
  });

  it('hides the password of a refused database URL', () => {
    assertInvalid(
      { DATABASE_URL: 'mysql://root:hunter2@db/jobs' },
      'DATABASE_URL',
      /mysql:\/\/root:\*\*\*@db\/jobs/,
    );
    assert.throws(
      () => load({ DATABASE_URL: 'mysql://root:hunter2@db/jobs' }),
      (e: Error) => !/hunter2/.test(e.message),
    );
  });

  it('names every invalid variable on one line', () => {
    assert.throws(
      () => load({ NUDGE_THREADS: 'abc', PORT: '-1' }),
      (error: NudgeError) =>
        error.code === 'INVALID_CONFIG' &&
        /^NUDGE_THREADS must .*; PORT must /.test(error.message) &&
        !error.message.includes('\n'),
    );
  });

  it('ignores variables it does not know', () => {
    assert.doesNotThrow(() => load({ PATH: '/bin', NUDGE_UNKNOWN: 'x' }));
  });
});

describe('loadDatabaseConfig', () => {
  it('reads the database part alone, without NUDGE_HANDLERS, ignoring the other variables', () => {
    assert.deepEqual(
      loadDatabaseConfig({
        DATABASE_URL: 'postgres://u@db:5432/jobs',
        NUDGE_LEASE_MS: '5000',
        NUDGE_THREADS: 'not checked here',
      }),
      {
        databaseUrl: 'postgres://u@db:5432/jobs',
        dialect: 'postgres',
        pgPreparedStatements: undefined,
        leaseMs: 5000,
        dbTimeoutMs: 10_000,
        dbConnectTimeoutMs: 5000,
        logLevel: 'info',
      },
    );
  });

  it('refuses a bad value with the same one-line message as loadConfig', () => {
    assert.throws(
      () => loadDatabaseConfig({ DATABASE_URL: 'mysql://x', NUDGE_DB_TIMEOUT_MS: 'soon' }),
      (error: unknown) =>
        error instanceof NudgeError &&
        error.code === 'INVALID_CONFIG' &&
        /^DATABASE_URL must be postgres:\/\/.*; NUDGE_DB_TIMEOUT_MS must be a whole number of ms/.test(
          error.message,
        ),
    );
  });
});
