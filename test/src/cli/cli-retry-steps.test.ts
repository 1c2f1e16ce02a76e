// `nudge retry --from-step` and `--reset-steps`, spawned from the build output on each dialect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '@nudge/store';
import { DIALECTS, createMigratedDatabase, openStore, type TestDatabase } from '../helpers/index.js';
import { addSteps, stepNames } from '../helpers/step-rows.js';
import { jsonOf, runCli } from './run-cli.js';

const STEPS = ['fetch', 'charge', 'archive'];

for (const dialect of DIALECTS) {
  describe(`nudge retry with steps: ${dialect}`, () => {
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

    const cancelledWithSteps = async (queue = 'steps'): Promise<number> => {
      const job = await store.enqueue({ kind: 'echo', queue });
      await addSteps(db, job.id, STEPS);
      await store.cancelJob(job.id);
      return job.id;
    };

    it('retry <id> keeps the steps; --from-step clears from a step; --reset-steps clears all', async () => {
      const kept = await cancelledWithSteps();
      const plain = await nudge('retry', String(kept));
      assert.equal(plain.code, 0, plain.stderr);
      assert.match(
        plain.stdout,
        new RegExp(`^job ${kept} retried \\(was CANCELLED, now PENDING\\); a running`),
      );
      assert.deepEqual(await stepNames(db, kept), STEPS);

      const from = await cancelledWithSteps();
      const cleared = await nudge('retry', String(from), '--from-step', 'charge');
      assert.equal(cleared.code, 0, cleared.stderr);
      assert.match(cleared.stdout, /; step "charge" and the ones after it cleared; a running service/);
      assert.deepEqual(await stepNames(db, from), ['fetch']);

      const reset = await cancelledWithSteps();
      const all = await nudge('retry', String(reset), '--reset-steps');
      assert.match(all.stdout, /; every recorded step cleared;/);
      assert.deepEqual(await stepNames(db, reset), []);
    });

    it('refuses both flags (exit 2) and a step the job never recorded (exit 1), changing nothing', async () => {
      const id = await cancelledWithSteps();
      const both = await nudge('retry', String(id), '--from-step', 'charge', '--reset-steps');
      assert.equal(both.code, 2);
      assert.match(both.stderr, /--reset-steps.*cannot be used with option '--from-step/);
      const missing = await nudge('retry', String(id), '--from-step', 'refund');
      assert.equal(missing.code, 1);
      assert.equal(
        missing.stderr.split(':')[1]?.trim(),
        'STEP_NOT_FOUND',
        `one line naming the code: ${missing.stderr}`,
      );
      assert.match(missing.stderr, new RegExp(`job ${id} has no step named "refund"`));
      assert.equal(missing.stderr.trimEnd().split('\n').length, 1);
      assert.equal((await store.getJob(id))?.status, 'CANCELLED');
      assert.deepEqual(await stepNames(db, id), STEPS);
    });

    it('the bulk form takes the same flags', async () => {
      const a = await cancelledWithSteps('bulk');
      const b = await cancelledWithSteps('bulk');
      const from = await nudge(
        'retry',
        '--status',
        'CANCELLED',
        '--queue',
        'bulk',
        '--from-step',
        'archive',
        '--json',
      );
      assert.deepEqual(jsonOf(from), { retried: 2, isolated: 0 });
      assert.deepEqual(await stepNames(db, a), ['fetch', 'charge']);
      await store.cancelJobs({ queue: 'bulk' });
      const reset = await nudge('retry', '--status', 'CANCELLED', '--queue', 'bulk', '--reset-steps');
      assert.equal(reset.stdout, 'retried 2 jobs; a running service claims them within one poll interval\n');
      assert.deepEqual(await stepNames(db, b), []);
    });
  });
}
