// The entry as users run it, `node apps/server/dist/main.js`, in its own process (via spawnServer
// of @nudge/harness).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SERVER_MAIN as MAIN, spawnServer, type ServerProcess } from '@nudge/harness';

const HANDLERS = `
export async function echo(payload) { return payload; }
export async function hold() { await new Promise((resolve) => setTimeout(resolve, 120_000)); }
`;

/** Polls `GET /jobs/:id` until the job has `status`: across processes there is no event to await. */
async function waitForStatus(url: string, id: number, status: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await (await fetch(`${url}/jobs/${id}`)).json()) as { status: string };
    if (job.status === status) return;
    if (Date.now() > deadline)
      throw new Error(`job ${id} is ${job.status}, not ${status}, after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolves once `server` has printed a stdout line matching `pattern`. */
async function waitForLine(server: ServerProcess, pattern: RegExp, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(server.output().stdout)) {
    if (Date.now() > deadline) throw new Error(`no ${String(pattern)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function postJob(url: string, kind: string): Promise<number> {
  const response = await fetch(`${url}/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind, payload: { from: 'main.test' } }),
  });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: number }).id;
}

describe('node apps/server/dist/main.js', () => {
  let dir: string;
  let env: Record<string, string>;
  const servers: ServerProcess[] = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-main-'));
    writeFileSync(join(dir, 'handlers.mjs'), HANDLERS);
    env = { NUDGE_HANDLERS: 'handlers.mjs', DATABASE_URL: 'sqlite:./nudge.db', NUDGE_THREADS: '2' };
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 1 with one stderr line naming an invalid variable', async () => {
    const child = spawn(process.execPath, [MAIN], {
      cwd: dir,
      env: { PATH: process.env.PATH, ...env, NUDGE_THREADS: 'abc' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 1);
    assert.equal(stderr, 'INVALID_CONFIG: NUDGE_THREADS must be a whole number from 1 to 1024 (got "abc")\n');
    assert.equal(stdout, '');
  });

  it('refuses to listen beyond loopback without API keys, saying what to set', async () => {
    const child = spawn(process.execPath, [MAIN], {
      cwd: dir,
      env: { PATH: process.env.PATH, ...env, HOST: '0.0.0.0' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 1);
    assert.match(
      stderr,
      /^INVALID_CONFIG: HOST is "0\.0\.0\.0" but NUDGE_API_KEYS is empty: set NUDGE_API_KEYS .* or NUDGE_ALLOW_UNAUTHENTICATED=true .*\n$/,
    );
  });

  it('says at start that the API is open on loopback only when no key is configured', async () => {
    const server = await spawnServer({ cwd: dir, env });
    servers.push(server);
    await waitForLine(
      server,
      /no API keys \(NUDGE_API_KEYS is empty\): the API is open, so it listens on 127\.0\.0\.1 only/,
    );
    assert.equal(await server.stop('SIGTERM'), 0);
  });

  it('with keys: 401 without one, 403 with the wrong scope, 201 with the right one; probes open', async () => {
    const producer = 'producer-key-0123456789ab';
    const reader = 'reader-key-0123456789abcd';
    const server = await spawnServer({
      cwd: dir,
      env: { ...env, NUDGE_API_KEYS: `${producer}:enqueue+read,${reader}:read` },
    });
    servers.push(server);
    const post = (key?: string) =>
      fetch(`${server.url}/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({ kind: 'echo' }),
      });
    assert.equal((await post()).status, 401);
    assert.equal((await post(reader)).status, 403);
    assert.equal((await post(producer)).status, 201);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
    const metrics = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${reader}` } });
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^nudge_jobs_enqueued_total\{kind="echo",queue="default"\} 1$/m);
    assert.equal(await server.stop('SIGTERM'), 0);
  });

  it('serves jobs, then exits 0 on SIGTERM', async () => {
    const server = await spawnServer({ cwd: dir, env });
    servers.push(server);
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const id = await postJob(server.url, 'echo');
    await waitForStatus(server.url, id, 'SUCCEEDED');
    assert.equal(await server.stop('SIGTERM'), 0);
    assert.equal(server.output().stderr, '');
    assert.match(server.output().stdout, /shut down cleanly/);
    assert.equal(await server.stop(), 0, 'stop after exit returns the exit code');
  });

  it('prints the listening line even when the log level hides it, and exits 0 on SIGINT', async () => {
    const server = await spawnServer({ cwd: dir, env: { ...env, LOG_LEVEL: 'silent' } });
    servers.push(server);
    assert.match(server.output().stdout, /^listening on http:\/\/127\.0\.0\.1:\d+$/m);
    assert.equal(await server.stop('SIGINT'), 0);
  });

  it('exits 1 at once on a second signal while jobs are still running', async () => {
    // The held job would keep a graceful shutdown waiting the whole grace; "at once" is judged
    // against it: a quarter of the grace, well past any exit, far short of waiting it out.
    const graceMs = 60_000;
    const server = await spawnServer({ cwd: dir, env: { ...env, NUDGE_SHUTDOWN_GRACE_MS: String(graceMs) } });
    servers.push(server);
    await waitForStatus(server.url, await postJob(server.url, 'hold'), 'RUNNING');
    server.child.kill('SIGTERM');
    await waitForLine(server, /SIGTERM: shutting down/);
    const started = Date.now();
    assert.equal(await server.stop('SIGTERM', 2 * graceMs), 1);
    assert.ok(Date.now() - started < graceMs / 4, 'the second signal exited without waiting out the grace');
  });
});
