// `nudge logs`, spawned from the build output against a real database of each dialect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fitJobLogLine } from '@nudge/core';
import type { ClaimedJob, Store } from '@nudge/store';
import { DIALECTS, createMigratedDatabase, openStore, type TestDatabase } from '../helpers/index.js';
import { runCli, startCli } from './run-cli.js';

const LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}#(\d+) {2}(DEBUG|INFO |WARN |ERROR) {2}(.*)$/;

for (const dialect of DIALECTS) {
  describe(`nudge logs: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    let env: NodeJS.ProcessEnv;
    let kinds = 0;
    const nudge = (...args: string[]) => runCli(args, env);

    before(async () => {
      db = await createMigratedDatabase(dialect);
      store = await openStore(db);
      env = { DATABASE_URL: db.url };
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    async function runningJob(): Promise<ClaimedJob> {
      const kind = `k${(kinds += 1)}`;
      await store.enqueue({ kind });
      const [claimed] = await store.claim({
        workerId: 'w',
        leaseMs: 60_000,
        groups: [{ kinds: [kind], limit: 1 }],
      });
      assert.ok(claimed);
      return claimed;
    }

    const log = (job: ClaimedJob, messages: readonly string[], linesPerJob = 1000) =>
      store.appendJobLogs(
        [
          {
            id: job.id,
            version: job.version,
            attempt: job.attempt,
            lines: messages.map((m, i) =>
              fitJobLogLine(i === 0 ? 'warn' : 'info', m, i === 0 ? '{"n":1}' : null),
            ),
          },
        ],
        { linesPerJob, bytesPerJob: 1_000_000 },
      );

    it('prints a message that holds a newline or a terminal escape on its own line, escaped', async () => {
      const job = await runningJob();
      await log(job, ['forged\n2026-01-01T00:00:00.000Z  #9  INFO   done\u001b[2J\u202e']);
      const run = await nudge('logs', String(job.id));
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout.trimEnd().split('\n');
      assert.equal(lines.length, 1, run.stdout);
      assert.ok(
        lines[0]?.endsWith('forged\\n2026-01-01T00:00:00.000Z  #9  INFO   done\\u001b[2J\\u202e  {"n":1}'),
        lines[0],
      );
      assert.equal(run.stdout.includes('\u001b'), false, 'no escape character reaches the terminal');
    });

    it("prints a job's lines (time, attempt, level, message, fields) and the lines dropped", async () => {
      const job = await runningJob();
      await log(job, ['first', 'second', 'third', 'fourth'], 3);
      const run = await nudge('logs', String(job.id));
      assert.equal(run.code, 0, run.stderr);
      const printed = run.stdout.trimEnd().split('\n');
      assert.deepEqual(
        printed.slice(0, 3).map((line) => LINE.exec(line)?.slice(1)),
        [
          ['1', 'WARN ', 'first  {"n":1}'],
          ['1', 'INFO ', 'second'],
          ['1', 'INFO ', 'third'],
        ],
      );
      assert.equal(printed[3], "(1 line dropped over the job's caps)");
      assert.equal(printed.length, 4);
    });

    it('prints nothing for a job without lines, and exits 1 with one line for no job', async () => {
      const job = await store.enqueue({ kind: 'quiet' });
      const quiet = await nudge('logs', String(job.id));
      assert.equal(quiet.code, 0, quiet.stderr);
      assert.equal(quiet.stdout, '');
      const missing = await nudge('logs', '999999');
      assert.equal(missing.code, 1);
      assert.equal(missing.stdout, '');
      assert.match(
        missing.stderr,
        /^nudge: no job has id 999999: check the id \(nudge list shows the newest\)\n$/,
      );
    });

    it('--follow prints new lines as they come and exits 0 once the job finished and its lines are read', async () => {
      const job = await runningJob();
      await log(job, ['before']);
      const following = startCli(['logs', String(job.id), '--follow', '--interval-ms', '50'], env);
      // Each line is printed while it follows, the last one with the outcome.
      await following.untilStdout(/before/);
      await log(job, ['during']);
      await following.untilStdout(/during/);
      await log(job, ['last']);
      await store.complete([{ id: job.id, version: job.version, resultJson: null }]);
      const run = await following.done;
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(
        run.stdout
          .trimEnd()
          .split('\n')
          .map((line) => LINE.exec(line)?.[3]),
        ['before  {"n":1}', 'during  {"n":1}', 'last  {"n":1}'],
      );
    });

    it('refuses a bad --interval-ms as a usage error', async () => {
      const run = await nudge('logs', '1', '--follow', '--interval-ms', '0');
      assert.equal(run.code, 2, 'a usage error');
      assert.match(run.stderr, /--interval-ms.*must be a whole number from 10 to 60000/);
    });
  });
}
