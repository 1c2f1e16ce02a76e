// Runs the real-scale demo end to end as `pnpm start -- --dataset flights-3m` does (start.js with
// NUDGE_DEMO_EXIT=1 and PORT=0) on a fresh database of each dialect: 11 part jobs, one merge job,
// one archive job. The archived report must equal the same computation done in this thread.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { DelayReport } from '@nudge/demo';
import { measureSingleThreadFlights3m } from '@nudge/harness';
import { createTestDatabase, rawQuery, type TestDatabase } from '../helpers/index.js';
import { runNode, type NodeRun } from './run-node.js';

const DEMO_DIST = dirname(createRequire(import.meta.url).resolve('@nudge/demo'));
const START = join(DEMO_DIST, 'start.js');
const SERVER_MAIN = join(DEMO_DIST, '..', '..', 'server', 'dist', 'main.js');

const serverMissing = existsSync(SERVER_MAIN) ? false : `${SERVER_MAIN} is not built`;
const dialects = [
  ['sqlite', false],
  ['postgres', process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is unset (run with pnpm test)'],
] as const;

let expected: DelayReport;
before(async () => {
  expected = (await measureSingleThreadFlights3m({ warmUpRuns: 0, timedRuns: 1 })).report;
});

for (const [dialect, skipDialect] of dialects) {
  describe(`flights-3m demo end to end on ${dialect}`, { skip: serverMissing || skipDialect }, () => {
    let db: TestDatabase;
    let cwd: string;
    let run: NodeRun;

    before(async () => {
      db = await createTestDatabase(dialect);
      cwd = mkdtempSync(join(tmpdir(), 'nudge-demo-3m-'));
      const env = { ...process.env, NUDGE_DEMO_EXIT: '1', PORT: '0', DATABASE_URL: db.url };
      run = await runNode(START, env, cwd, ['--dataset', 'flights-3m']);
    });

    after(async () => {
      await db.drop();
      rmSync(cwd, { recursive: true, force: true });
    });

    test('start.js exits 0 and prints the findings and the run', () => {
      assert.equal(
        run.code,
        0,
        `exit code ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`,
      );
      assert.match(run.stdout, /Enqueued 11 flightDelayPart jobs \(one per row group of flights-3m\)/);
      assert.match(
        run.stdout,
        /Flight delays in flights-3m: 3,000,000 flights from 229 origin airports, 2001-01 to 2001-07/,
      );
      const busiest = expected.topRoutes[0];
      assert.ok(busiest);
      assert.match(
        run.stdout,
        new RegExp(`Busiest route +${busiest.origin} → ${busiest.destination} +8,323 flights`),
      );
      // 2001-07 holds six flights stamped midnight after June 30: too few to be named.
      assert.match(run.stdout, /Most delayed month +2001-02 +23\.3% delayed > 15 min, 458,170 flights/);
      assert.match(run.stdout, /Jobs +13 \(11 parts, 1 merge, 1 archive\), all succeeded/);
      assert.match(run.stdout, /Archives +1 files, .* in .*output\/reports/);
    });

    test('one flow: every job succeeded, the merge depends on every part, the archive on the merge', async () => {
      const rows = await rawQuery<{
        id: number | string;
        kind: string;
        status: string;
        payload: unknown;
        depends_on: unknown;
      }>(db, 'SELECT id, kind, status, payload, depends_on FROM nudge_jobs ORDER BY id');
      assert.deepEqual(
        rows.map((row) => [row.kind, row.status]),
        [
          ...Array.from({ length: 11 }, () => ['flightDelayPart', 'SUCCEEDED']),
          ['flightDelayMerge', 'SUCCEEDED'],
          ['archiveReport', 'SUCCEEDED'],
        ],
      );
      const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);
      const [merge, archive] = rows.slice(11);
      assert.ok(merge && archive);
      assert.deepEqual(
        json(merge.depends_on),
        rows.slice(0, 11).map((row) => Number(row.id)),
      );
      assert.deepEqual(json(archive.depends_on), [Number(merge.id)]);
      assert.deepEqual(json(merge.payload), { dataset: 'flights-3m', origin: 'ALL', topRoutes: 5 });
      assert.match(
        run.stdout,
        /a flightDelayMerge job depending on them and an archiveReport job depending on the merge in one transaction/,
      );
    });

    test('the archived report equals the single-thread computation', () => {
      const file = join(cwd, 'output', 'reports', 'delays-flights-3m-ALL.json.gz');
      const archived = JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as DelayReport;
      assert.deepEqual(archived, expected);
      assert.equal(archived.total.flights, 3_000_000);
    });
  });
}
