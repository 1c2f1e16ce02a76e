// spawnServer against the real server entry: a start failure rejects quoting the server's stderr,
// and a started server gives its URL and stops with its exit code.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnServer } from './spawn-server.js';

describe('spawnServer', () => {
  let dir: string;
  let env: Record<string, string>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-spawn-'));
    writeFileSync(join(dir, 'handlers.mjs'), 'export async function echo(payload) { return payload; }\n');
    env = { NUDGE_HANDLERS: 'handlers.mjs', DATABASE_URL: 'sqlite:./nudge.db', NUDGE_THREADS: '1' };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('rejects, quoting stderr, when the server exits before listening', async () => {
    await assert.rejects(
      spawnServer({ cwd: dir, env: { ...env, NUDGE_LEASE_MS: '10' } }),
      /exited with code 1 before listening: INVALID_CONFIG: NUDGE_LEASE_MS must be/,
    );
  });

  it('resolves with a loopback URL once the server listens, and stop() gives the exit code', async () => {
    const lines: string[] = [];
    const server = await spawnServer({
      cwd: dir,
      env: { ...env, HOST: '0.0.0.0', NUDGE_ALLOW_UNAUTHENTICATED: 'true' },
      onLine: (line) => lines.push(line),
    });
    try {
      // The server printed a wildcard host; a client on this machine gets loopback.
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      assert.ok(
        lines.some((line) => line.includes('listening on http://0.0.0.0:')),
        lines.join('\n'),
      );
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0);
    }
    assert.equal(await server.stop(), 0, 'stop after exit returns the exit code');
  });
});
