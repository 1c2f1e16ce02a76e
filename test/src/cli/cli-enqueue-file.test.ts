// `nudge enqueue --file`: many jobs from an NDJSON file or stdin, in batches of 1,000.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Store } from '@nudge/store';
import {
  DIALECTS,
  createMigratedDatabase,
  openStore,
  rawQuery,
  type TestDatabase,
} from '../helpers/index.js';
import { runCli } from './run-cli.js';

const lines = (count: number, make: (i: number) => string): string =>
  Array.from({ length: count }, (_, i) => make(i)).join('\n') + '\n';

for (const dialect of DIALECTS) {
  describe(`nudge enqueue --file: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    let dir: string;
    const count = async (kind: string) =>
      Number(
        (
          await rawQuery<{ n: number | string }>(db, 'SELECT count(*) AS n FROM nudge_jobs WHERE kind = ?', [
            kind,
          ])
        )[0]?.n,
      );
    before(async () => {
      db = await createMigratedDatabase(dialect);
      store = await openStore(db);
      dir = mkdtempSync(join(tmpdir(), 'nudge-ndjson-'));
    });
    after(async () => {
      await store.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('enqueues 2,500 jobs from a file in 3 batches, fields as POST /jobs takes them', async () => {
      const file = join(dir, 'jobs.ndjson');
      writeFileSync(
        file,
        lines(2500, (i) =>
          JSON.stringify({ kind: 'bulk', payload: { i }, queue: i % 2 ? 'odd' : 'even', priority: i % 3 }),
        ),
      );
      const run = await runCli(['enqueue', '--file', file], { DATABASE_URL: db.url });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'enqueued 2500 jobs (2500 new, 0 existed) from 2500 lines in 3 batches\n');
      assert.equal(run.stderr, '', 'no progress bar when stderr is not a terminal');
      assert.equal(await count('bulk'), 2500);
      const odd = await rawQuery<{ n: number | string }>(
        db,
        "SELECT count(*) AS n FROM nudge_jobs WHERE kind = 'bulk' AND queue = 'odd'",
      );
      assert.equal(Number(odd[0]?.n), 1250);
      const [last] = await store.listJobs({ kind: 'bulk', limit: 1 });
      assert.deepEqual([last?.payload, last?.priority, last?.queue], [{ i: 2499 }, 2499 % 3, 'odd']);
    });

    it('reads stdin with -, skipping blank lines; idempotency keys count as existed', async () => {
      const input = `{"kind":"piped","idempotencyKey":"a"}\n\n{"kind":"piped","idempotencyKey":"a"}\r\n{"kind":"piped","delayMs":60000}\n`;
      const run = await runCli(['enqueue', '--file', '-'], { DATABASE_URL: db.url }, input);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'enqueued 3 jobs (2 new, 1 existed) from 4 lines in 1 batch\n');
      assert.equal(await count('piped'), 2);
    });

    it('a bad line: exit 1, one line naming it; earlier batches stay, nothing of its batch is written', async () => {
      const file = join(dir, 'bad.ndjson');
      writeFileSync(
        file,
        lines(1500, (i) =>
          i === 1399
            ? '{"kind":"partial","priority":"high"}'
            : JSON.stringify({ kind: 'partial', payload: { i } }),
        ),
      );
      const run = await runCli(['enqueue', '--file', file], { DATABASE_URL: db.url });
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr,
        'nudge: line 1400: INVALID_REQUEST: /priority must be an integer from -1000 to 1000 (got "high"); nothing of lines 1001-1400 was written (lines 1-1000 were: 1000 jobs in 1 batch)\n',
      );
      assert.equal(run.stdout, '');
      assert.equal(await count('partial'), 1000);

      const notJson = join(dirname(file), 'not-json.ndjson');
      writeFileSync(notJson, '{"kind":"x"}\n{"kind": nope}\n');
      const second = await runCli(['enqueue', '--file', notJson], { DATABASE_URL: db.url });
      assert.equal(second.code, 1);
      assert.match(
        second.stderr,
        /^nudge: line 2: not valid JSON \([^\n]*\); nothing of lines 1-2 was written\n$/,
      );
      assert.equal(await count('x'), 0);
    });
  });
}
