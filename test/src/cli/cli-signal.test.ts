// `nudge signal`, spawned from the build output against a real database of each dialect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '@nudge/store';
import {
  DIALECTS,
  createMigratedDatabase,
  openStore,
  rawQuery,
  type TestDatabase,
} from '../helpers/index.js';
import { jsonOf, runCli } from './run-cli.js';

for (const dialect of DIALECTS) {
  describe(`nudge signal: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    let env: NodeJS.ProcessEnv;
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

    it('sends a signal that releases a job waiting for it; a repeat of --signal-id sends nothing', async () => {
      const job = await store.enqueue({ kind: 'k' });
      await rawQuery(
        db,
        "UPDATE nudge_jobs SET status = 'WAITING', wait_signal = 'approve', run_at = ? WHERE id = ?",
        [new Date(Date.now() + 3_600_000).toISOString(), job.id],
      );
      const run = await nudge(
        'signal',
        String(job.id),
        'approve',
        '--payload',
        '{"ok":true}',
        '--signal-id',
        's-1',
      );
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^signal "approve" sent to job ${job.id} \\(signal \\d+\\)\\n$`));
      const released = await store.getJob(job.id);
      assert.equal(released?.status, 'PENDING');
      const again = await nudge('signal', String(job.id), 'approve', '--signal-id', 's-1');
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /^signal "s-1" was already sent to job \d+ \(signal \d+\): nothing sent\n$/);
      const json = jsonOf(await nudge('signal', String(job.id), 'other', '--json'));
      assert.deepEqual(
        [json.jobId, json.name, json.payload, json.signalId, json.created],
        [job.id, 'other', null, null, true],
      );
      assert.match(String(json.createdAt), /Z$/);
      const { signals } = await store.jobSteps(job.id);
      assert.deepEqual(
        signals.map((s) => [s.name, s.payload, s.signalId]),
        [
          ['approve', { ok: true }, 's-1'],
          ['other', null, null],
        ],
      );
    });

    it('fails with one line for an unknown or finished job, a bad name, and a payload that is not JSON', async () => {
      const unknown = await nudge('signal', '987654', 'approve');
      assert.equal(unknown.code, 1);
      assert.equal(
        unknown.stderr,
        'nudge: no job has id 987654: check the id (nudge list shows the newest)\n',
      );
      const job = await store.enqueue({ kind: 'k' });
      await store.cancelJob(job.id);
      const finished = await nudge('signal', String(job.id), 'approve');
      assert.equal(finished.code, 1);
      assert.match(
        finished.stderr,
        /^nudge: job \d+ has finished: a signal reaches only a job that has not finished\n$/,
      );
      const empty = await nudge('signal', String(job.id), '');
      assert.equal(empty.code, 1);
      assert.match(empty.stderr, /^nudge: INVALID_REQUEST: \/name must be a string of 1 to 200 characters/);
      assert.equal(empty.stderr.split('\n').length, 2, 'one line');
      const notJson = await nudge('signal', String(job.id), 'approve', '--payload', '{nope');
      assert.equal(notJson.code, 2);
      assert.match(notJson.stderr, /^nudge: --payload must be JSON \(.*\): quote it/);
      const badId = await nudge('signal', 'x', 'approve');
      assert.equal(badId.code, 2);
    });
  });
}
