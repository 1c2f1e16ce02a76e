import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NudgeError } from '@nudge/core';
import { parseRetention } from '@nudge/engine';
import { CONFIG_VARIABLES, loadConfig } from './config.js';
import { SETTING_VARIABLES } from './env-schema.js';
import { resolveServerOptions, type ServerOptions } from './server-options.js';

const dir = mkdtempSync(join(tmpdir(), 'nudge-options-'));
const handlers = join(dir, 'handlers.mjs');
writeFileSync(handlers, 'export async function echo(p) { return p; }\n');
after(() => rmSync(dir, { recursive: true, force: true }));

/** Asserts `options` are refused with `INVALID_CONFIG` and exactly `message`. */
function assertRefused(options: Partial<ServerOptions>, message: string): void {
  assert.throws(
    () => resolveServerOptions({ handlers, ...options }, dir),
    (error: unknown) => {
      assert.ok(error instanceof NudgeError);
      assert.equal(error.code, 'INVALID_CONFIG');
      assert.equal(error.message, message);
      return true;
    },
  );
}

describe('resolveServerOptions', () => {
  it('has an option for every variable', () => {
    assert.deepEqual(Object.values(SETTING_VARIABLES).sort(), [...CONFIG_VARIABLES].sort());
  });

  it('takes the defaults of the environment for every option left out', () => {
    assert.deepEqual(resolveServerOptions({ handlers }, dir), loadConfig({ NUDGE_HANDLERS: handlers }, dir));
    assert.deepEqual(
      resolveServerOptions({ handlers, threads: undefined, port: undefined }, dir),
      loadConfig({ NUDGE_HANDLERS: handlers }, dir),
    );
  });

  it('reads every option as its variable would be read', () => {
    const schedules = [{ name: 'nightly', cron: '0 3 * * *', kind: 'echo' }];
    const key = 'k'.repeat(24);
    const options: ServerOptions = {
      handlers: 'handlers.mjs',
      databaseUrl: 'postgres://app@db:5432/app',
      threads: 3,
      asyncThreads: 2,
      asyncConcurrency: 250,
      maxClaimBatch: 50,
      cpuThreadNice: 0,
      queues: 'default,emails:4',
      host: '0.0.0.0',
      port: 0,
      pollIntervalMs: 250,
      claimCooldownMs: 0,
      idlePollMaxMs: 30000,
      listen: false,
      leaseMs: 10_000,
      sweepIntervalMs: 1000,
      jobTimeoutMs: 60_000,
      abortGraceMs: 0,
      shutdownGraceMs: 2000,
      unhandledKindGraceMs: 0,
      schedules,
      retention: 'SUCCEEDED=2h,report:FAILED=keep',
      pruneIntervalMs: 0,
      dbTimeoutMs: 2000,
      dbConnectTimeoutMs: 1000,
      maxOldGenerationSizeMb: 64,
      bodyLimitBytes: 2048,
      apiKeys: `${key}:admin`,
      allowUnauthenticated: true,
      rateLimitPerMinute: 0,
      logLevel: 'warn',
    };
    assert.deepEqual(
      resolveServerOptions(options, dir),
      loadConfig(
        {
          NUDGE_HANDLERS: 'handlers.mjs',
          DATABASE_URL: 'postgres://app@db:5432/app',
          NUDGE_THREADS: '3',
          NUDGE_ASYNC_THREADS: '2',
          NUDGE_ASYNC_CONCURRENCY: '250',
          NUDGE_MAX_CLAIM_BATCH: '50',
          NUDGE_CPU_THREAD_NICE: '0',
          NUDGE_QUEUES: 'default,emails:4',
          HOST: '0.0.0.0',
          PORT: '0',
          NUDGE_POLL_INTERVAL_MS: '250',
          NUDGE_CLAIM_COOLDOWN_MS: '0',
          NUDGE_LISTEN: 'false',
          NUDGE_LEASE_MS: '10000',
          NUDGE_SWEEP_INTERVAL_MS: '1000',
          NUDGE_JOB_TIMEOUT_MS: '60000',
          NUDGE_ABORT_GRACE_MS: '0',
          NUDGE_SHUTDOWN_GRACE_MS: '2000',
          NUDGE_UNHANDLED_KIND_GRACE_MS: '0',
          NUDGE_SCHEDULES: JSON.stringify(schedules),
          NUDGE_RETENTION: 'SUCCEEDED=2h,report:FAILED=keep',
          NUDGE_PRUNE_INTERVAL_MS: '0',
          NUDGE_DB_TIMEOUT_MS: '2000',
          NUDGE_DB_CONNECT_TIMEOUT_MS: '1000',
          NUDGE_MAX_OLD_GENERATION_MB: '64',
          NUDGE_BODY_LIMIT_BYTES: '2048',
          NUDGE_API_KEYS: `${key}:admin`,
          NUDGE_ALLOW_UNAUTHENTICATED: 'true',
          NUDGE_RATE_LIMIT_PER_MINUTE: '0',
          LOG_LEVEL: 'warn',
        },
        dir,
      ),
    );
    const config = resolveServerOptions(options, dir);
    assert.equal(config.handlers, handlers);
    assert.equal(config.dialect, 'postgres');
    assert.deepEqual(config.queues, [{ name: 'default' }, { name: 'emails', cap: 4 }]);
    assert.deepEqual(config.retention, parseRetention('SUCCEEDED=2h,report:FAILED=keep'));
  });

  it('refuses a bad value with the message of its variable, naming the option', () => {
    assertRefused({ threads: 0 }, 'threads must be a whole number from 1 to 1024 (got 0)');
    assertRefused({ leaseMs: 2.5 }, 'leaseMs must be a whole number of ms from 300 to 2147483647 (got 2.5)');
    assertRefused(
      { logLevel: 'loud' as 'info' },
      `logLevel must be one of fatal, error, warn, info, debug, trace, silent (got "loud")`,
    );
    assertRefused({ listen: 'yes' as unknown as boolean }, 'listen must be true or false (got "yes")');
    assertRefused(
      { queues: 'default:0' },
      'queues is invalid: queues: the cap of "default" must be a whole number from 1 to 100000 (got 0)',
    );
    assertRefused(
      { threads: -1, port: 70_000 },
      'threads must be a whole number from 1 to 1024 (got -1); port must be a whole number from 0 to 65535 (got 70000)',
    );
    assertRefused(
      { host: '0.0.0.0' },
      'host is "0.0.0.0" but apiKeys is empty: set apiKeys (such as "$(openssl rand -hex 24):admin") to require keys, or allowUnauthenticated=true to serve the API to the network without them',
    );
  });

  it('requires handlers and refuses an option that is no setting', () => {
    assert.throws(
      () => resolveServerOptions({} as ServerOptions, dir),
      (error: unknown) =>
        error instanceof NudgeError &&
        /^handlers is required: set it to the path of the handler module/.test(error.message),
    );
    assert.throws(
      () => resolveServerOptions({ handlers, treads: 2 } as ServerOptions, dir),
      /^TypeError: startServer has no option "treads"; the options are databaseUrl, handlers, threads/,
    );
    assert.throws(
      () => resolveServerOptions({ handlers, dialect: 'sqlite' } as ServerOptions, dir),
      TypeError,
    );
  });
});

describe('resolveServerOptions: the engine object', () => {
  it('takes the engine settings in engine, as the top level takes them', () => {
    const settings = { threads: 3, leaseMs: 10_000, listen: false, queues: 'default,emails:4' } as const;
    assert.deepEqual(
      resolveServerOptions({ handlers, engine: settings }, dir),
      resolveServerOptions({ handlers, ...settings }, dir),
    );
  });

  it("passes the engine's own values through as they are", () => {
    const queues = [{ name: 'default' }, { name: 'emails', cap: 4 }];
    const retention = parseRetention('SUCCEEDED=2h');
    const config = resolveServerOptions({ handlers, engine: { queues, retention } }, dir);
    assert.equal(config.queues, queues);
    assert.equal(config.retention, retention);
  });

  it('names the option engine.NAME in messages, with the range of the table', () => {
    assertRefused({ engine: { threads: 0 } }, 'engine.threads must be a whole number from 1 to 1024 (got 0)');
    assertRefused(
      { engine: { leaseMs: 2 ** 31 } },
      'engine.leaseMs must be a whole number of ms from 300 to 2147483647 (got 2147483648)',
    );
  });

  it('refuses a setting given twice, and one the engine does not have', () => {
    assert.throws(
      () => resolveServerOptions({ handlers, threads: 2, engine: { threads: 3 } }, dir),
      /^TypeError: startServer takes threads once/,
    );
    assert.throws(
      () => resolveServerOptions({ handlers, engine: { port: 0 } as ServerOptions['engine'] }, dir),
      /^TypeError: startServer has no option engine.port; the engine's are threads, /,
    );
  });
});
