// A step's result survives kill -9 between steps: the service (`node apps/server/dist/main.js`,
// its own process) is killed while step `b` runs, after step `a` finished; a second service
// takes the job over once its lease expires, and step `a` never runs again. On both dialects.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/index.js';

// Each step's run appends `<step> <attempt>` to the ledger; step b waits for the release file.
const HANDLERS = `
import { appendFileSync, existsSync } from 'node:fs';
export async function twoSteps(payload, ctx) {
  const a = await ctx.step('a', () => {
    appendFileSync(payload.ledger, 'a ' + ctx.attempt + '\\n');
    return { token: Math.random() };
  });
  const b = await ctx.step('b', async () => {
    appendFileSync(payload.ledger, 'b ' + ctx.attempt + '\\n');
    while (!existsSync(payload.release)) await new Promise((r) => setTimeout(r, 10));
    return ctx.attempt;
  });
  return { a, b };
}
`;

async function getJob(
  url: string,
  id: number,
): Promise<{ status: string; result: unknown; attempts: number }> {
  return (await (await fetch(`${url}/jobs/${id}`)).json()) as {
    status: string;
    result: unknown;
    attempts: number;
  };
}

async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

for (const dialect of DIALECTS) {
  describe(`durable steps across kill -9: ${dialect}`, () => {
    let dir: string;
    let db: TestDatabase;
    const servers: ServerProcess[] = [];
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'nudge-steps-kill-'));
      writeFileSync(join(dir, 'handlers.mjs'), HANDLERS);
      db = await createTestDatabase(dialect);
    });
    after(async () => {
      await Promise.all(servers.map((server) => server.stop('SIGKILL')));
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("a finished step's result survives kill -9 during the next step, and the step never runs again", async () => {
      const env = {
        NUDGE_HANDLERS: 'handlers.mjs',
        DATABASE_URL: db.url,
        NUDGE_THREADS: '1',
        NUDGE_LEASE_MS: '2000',
        NUDGE_SWEEP_INTERVAL_MS: '200',
        NUDGE_POLL_INTERVAL_MS: '200',
      };
      const ledger = join(dir, 'ledger');
      const release = join(dir, 'release');
      const first = await spawnServer({ cwd: dir, env });
      servers.push(first);
      const response = await fetch(`${first.url}/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'twoSteps', payload: { ledger, release } }),
      });
      assert.equal(response.status, 201);
      const { id } = (await response.json()) as { id: number };
      await waitFor('step b running', () =>
        existsSync(ledger) && readFileSync(ledger, 'utf8').includes('b 1') ? true : undefined,
      );
      assert.equal(await first.stop('SIGKILL'), 128 + 9);
      const second = await spawnServer({ cwd: dir, env });
      servers.push(second);
      // The killed attempt's lease expires, the sweep gives the job another attempt, and step b
      // runs again in it: release it then.
      await waitFor('step b running again', () =>
        readFileSync(ledger, 'utf8').includes('b 2') ? true : undefined,
      );
      writeFileSync(release, '');
      const job = await waitFor('the job to succeed', async () => {
        const current = await getJob(second.url, id);
        return current.status === 'SUCCEEDED' ? current : undefined;
      });
      assert.deepEqual(readFileSync(ledger, 'utf8').trim().split('\n'), ['a 1', 'b 1', 'b 2']);
      const result = job.result as { a: { token: number }; b: number };
      assert.equal(result.b, 2);
      assert.equal(typeof result.a.token, 'number', "attempt 2 got attempt 1's stored result");
      assert.equal(await second.stop('SIGTERM'), 0);
    });
  });
}
