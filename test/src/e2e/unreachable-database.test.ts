// PostgreSQL goes away under a running service: a port that accepts and never answers
// (blackhole), a closed port, then connections reset (TCP RST). Claims, heartbeats and /readyz must fail within the configured
// timeouts instead of hanging, the service must stay up, and it must recover by itself.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startServer, type RunningServer } from '@nudge/server';
import type { Store } from '@nudge/store';
import {
  FIXTURE_HANDLERS,
  createTcpProxy,
  createMigratedDatabase,
  openStore,
  waitForEvent,
  waitUntil,
  type TcpProxy,
  type TestDatabase,
} from '../helpers/index.js';

const TIMEOUT_MS = 1000;
/** The most a failure may take: the timeout, the client's margin past it, and scheduling slack. */
const FAIL_WITHIN_MS = 2 * TIMEOUT_MS + 1500;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await work();
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describe('an unreachable PostgreSQL', () => {
  let db: TestDatabase;
  let direct: Store;
  let proxy: TcpProxy;
  let server: RunningServer;

  before(async () => {
    db = await createMigratedDatabase('postgres');
    direct = await openStore(db);
    const target = new URL(db.url);
    proxy = await createTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(db.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    server = await startServer({
      databaseUrl: viaProxy.toString(),
      handlers: fileURLToPath(FIXTURE_HANDLERS),
      port: 0,
      threads: 1,
      pollIntervalMs: 100,
      leaseMs: 3000,
      dbTimeoutMs: TIMEOUT_MS,
      dbConnectTimeoutMs: TIMEOUT_MS,
      logLevel: 'silent',
    });
  });
  after(async () => {
    await proxy.setMode('forward');
    await server.close();
    await proxy.close();
    await direct.close();
    await db.drop();
  });

  const readyz = async (): Promise<number> => (await fetch(`${server.url}/readyz`)).status;
  const healthz = async (): Promise<number> => (await fetch(`${server.url}/healthz`)).status;

  const runsAJob = async (): Promise<void> => {
    const job = await direct.enqueue({ kind: 'echo', payload: { ok: true } });
    server.engine.requestClaim();
    await waitUntil(
      async () => ((await direct.getJob(job.id))?.status === 'SUCCEEDED' ? true : undefined),
      20_000,
    );
  };

  for (const mode of ['blackhole', 'refuse', 'reset'] as const) {
    it(`${mode}: claim, heartbeat and /readyz fail within the timeout; the service recovers`, async () => {
      assert.equal(await readyz(), 200);
      await runsAJob();
      await proxy.setMode(mode);

      const ready = await timed(readyz);
      assert.equal(ready.value, 503);
      assert.ok(ready.ms < FAIL_WITHIN_MS, `/readyz took ${Math.round(ready.ms)} ms`);

      const beat = await timed(() => server.engine.heartbeatOnce());
      assert.ok(beat.error, 'the heartbeat fails');
      assert.ok(beat.ms < FAIL_WITHIN_MS, `the heartbeat took ${Math.round(beat.ms)} ms`);

      const claimFailed = waitForEvent(server.engine, 'claim:error', () => true, FAIL_WITHIN_MS + 1000);
      const claim = await timed(async () => {
        server.engine.requestClaim();
        await claimFailed;
      });
      assert.equal(claim.error, undefined, 'a claim fails and reports it');
      assert.ok(claim.ms < FAIL_WITHIN_MS + 1000, `the claim took ${Math.round(claim.ms)} ms to fail`);

      assert.equal(await healthz(), 200, 'the service stays up');
      await proxy.setMode('forward');
      await waitUntil(async () => ((await readyz()) === 200 ? true : undefined), 20_000, 100, 'ready again');
      await runsAJob();
    });
  }
});
