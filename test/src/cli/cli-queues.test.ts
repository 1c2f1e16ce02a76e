// `nudge queues` and `nudge queues set`, spawned from the build output against a real database of each dialect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '@nudge/store';
import { DIALECTS, createMigratedDatabase, openStore, type TestDatabase } from '../helpers/index.js';
import { jsonOf, runCli } from './run-cli.js';

for (const dialect of DIALECTS) {
  describe(`nudge queues: ${dialect}`, () => {
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

    it('sets limits, keeps the ones not given, removes one with none, and lists them', async () => {
      const set = jsonOf(
        await nudge('queues', 'set', 'partner', '--concurrency', '5', '--rate', '100/1s', '--json'),
      );
      assert.deepEqual(
        [set.name, set.concurrency, set.rateLimit, set.keyConcurrency],
        ['partner', 5, { limit: 100, intervalMs: 1_000 }, null],
      );
      const table = await nudge(
        'queues',
        'set',
        'partner',
        '--key-concurrency',
        '1',
        '--concurrency',
        'none',
      );
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^QUEUE\s+PAUSED\s+CONCURRENCY\s+RATE\s+PER KEY/);
      assert.match(table.stdout, /\npartner\s+no\s+-\s+100\/1000ms\s+1\s+0\s+0\s+0\s+0\n$/);
      const stored = (await store.listQueues()).find((q) => q.name === 'partner');
      assert.deepEqual(
        [stored?.concurrency, stored?.rateLimit, stored?.keyConcurrency],
        [null, { limit: 100, intervalMs: 1_000 }, 1],
      );
      const listed = jsonOf(await nudge('queues', '--json'));
      assert.deepEqual(
        (listed.queues as Array<Record<string, unknown>>).map((q) => [q.name, q.keyConcurrency]),
        [['partner', 1]],
      );
      assert.match(
        (await nudge('queues', 'set', 'partner', '--rate', '5/250ms', '--json')).stdout,
        /"intervalMs": 250/,
      );
    });

    it('a bad limit or none at all: non-zero exit, one line saying what to fix, nothing written', async () => {
      const cases: Array<[string[], RegExp]> = [
        [['--concurrency', '0'], /^nudge: --concurrency must be a whole number from 1 to 100000 \(got "0"\)/],
        [['--rate', '100'], /must be <limit>\/<interval>, such as 100\/1s or 5\/250ms/],
        [['--rate', '10/2d'], /must be <limit>\/<interval>/],
        [['--rate', '0/1s'], /rate limit 0 must be an integer from 1 to 1000000/],
        [[], /^nudge: queues set needs at least one of --concurrency, --rate, --key-concurrency\n$/],
      ];
      for (const [args, message] of cases) {
        const run = await nudge('queues', 'set', 'strict', ...args);
        assert.notEqual(run.code, 0, args.join(' '));
        assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
        assert.match(run.stderr, message);
      }
      assert.equal(
        (await store.listQueues()).find((q) => q.name === 'strict'),
        undefined,
      );
    });
  });
}
