// Runs the whole demo end to end as `pnpm start` does (apps/demo/dist/start.js with
// NUDGE_DEMO_EXIT=1 and PORT=0) on a fresh database of each dialect, and the producer alone
// against an unusable database or an unreachable server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { datasetFile } from '@nudge/demo';
import {
  createSqliteDatabase,
  createTestDatabase,
  openStore,
  rawQuery,
  type TestDatabase,
} from '../helpers/index.js';
import { RUN_TIMEOUT_MS, runNode, type NodeRun as Run } from './run-node.js';

const DEMO_DIST = dirname(createRequire(import.meta.url).resolve('@nudge/demo'));
const START = join(DEMO_DIST, 'start.js');
const PRODUCER = join(DEMO_DIST, 'producer.js');
const SERVER_MAIN = join(DEMO_DIST, '..', '..', 'server', 'dist', 'main.js');

/** A port nothing listens on: one the OS just handed out and took back. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** The busiest route and the month with the highest share delayed > 15 min, straight from SQL. */
function expectedFindings(): { route: string; month: string } {
  const db = new Database(':memory:');
  try {
    db.exec('CREATE TABLE flights (month TEXT, delay INTEGER, origin TEXT, destination TEXT)');
    db.prepare(
      `INSERT INTO flights SELECT substr(value ->> '$.date', 1, 4) || '-' || substr(value ->> '$.date', 6, 2),
         value ->> '$.delay', value ->> '$.origin', value ->> '$.destination' FROM json_each(?)`,
    ).run(readFileSync(datasetFile('flights-20k'), 'utf8'));
    const route = db
      .prepare<[], { route: string }>(
        `SELECT origin || ' → ' || destination AS route FROM flights GROUP BY origin, destination
         ORDER BY count(*) DESC, origin, destination LIMIT 1`,
      )
      .get();
    const month = db
      .prepare<[], { month: string }>(
        'SELECT month FROM flights GROUP BY month ORDER BY avg(delay > 15) DESC LIMIT 1',
      )
      .get();
    assert.ok(route && month);
    return { route: route.route, month: month.month };
  } finally {
    db.close();
  }
}

const serverMissing = existsSync(SERVER_MAIN) ? false : `${SERVER_MAIN} is not built`;
const dialects = [
  ['sqlite', false],
  ['postgres', process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is unset (run with pnpm test)'],
] as const;

for (const [dialect, skipDialect] of dialects) {
  describe(`demo end to end on ${dialect}`, { skip: serverMissing || skipDialect }, () => {
    let db: TestDatabase;
    let cwd: string;
    let run: Run;

    before(async () => {
      db = await createTestDatabase(dialect);
      cwd = mkdtempSync(join(tmpdir(), 'nudge-demo-run-'));
      run = await runNode(
        START,
        { ...process.env, NUDGE_DEMO_EXIT: '1', PORT: '0', DATABASE_URL: db.url },
        cwd,
      );
    });

    after(async () => {
      await db.drop();
      rmSync(cwd, { recursive: true, force: true });
    });

    test('start.js exits 0 after the demo', () => {
      assert.equal(
        run.code,
        0,
        `exit code ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`,
      );
      assert.match(run.stdout, /\[demo\] server listening at http:\/\/\S+:\d+; running the producer/);
    });

    test('the first run prints no warning (such as MaxListenersExceededWarning)', () => {
      assert.doesNotMatch(`${run.stdout}\n${run.stderr}`, /Warning/);
    });

    test('the summary gives the findings and the run figures, aligned', () => {
      const expected = expectedFindings();
      assert.match(run.stdout, /Flight delays in flights-20k: 20,000 flights from \d+ origin airports/);
      assert.match(
        run.stdout,
        /Worst origin by mean delay +[A-Z0-9]{3} {2}.+ mean -?\d+(\.\d)? min, p95 -?\d+ min/,
      );
      assert.match(run.stdout, /Best on-time origin +[A-Z0-9]{3} {2}.+ \d+\.\d% delayed > 15 min/);
      assert.match(run.stdout, new RegExp(`Busiest route +${expected.route} +\\d+ flights, mean delay`));
      assert.match(
        run.stdout,
        new RegExp(`Most delayed month +${expected.month} +\\d+\\.\\d% delayed > 15 min`),
      );
      assert.match(run.stdout, /Jobs +52 \(26 reports, 26 archives\), all succeeded/);
      assert.match(run.stdout, /Wall time +\d+\.\d\d s/);
      assert.match(run.stdout, /Throughput +\d+\.\d jobs\/s/);
      assert.match(run.stdout, /Enqueue → start latency +p50 \d+ ms, p99 \d+ ms/);
      const rows = run.stdout
        .split('\n')
        .filter((line) => /^ {2}(Worst|Best|Busiest|Most|Jobs|Wall|Throughput)/.test(line));
      const columns = new Set(rows.map((line) => line.search(/(?<=\S {2,})\S/)));
      assert.equal(columns.size, 1, `the second column should start at one offset:\n${rows.join('\n')}`);
    });

    test('every job succeeded and every report was archived, the review too', async () => {
      const rows = await rawQuery<{ kind: string; status: string; n: number | string }>(
        db,
        'SELECT kind, status, count(*) AS n FROM nudge_jobs GROUP BY kind, status ORDER BY kind',
      );
      assert.deepEqual(
        rows.map((row) => [row.kind, row.status, Number(row.n)]),
        [
          ['archiveReport', 'SUCCEEDED', 26],
          ['flightDelayReport', 'SUCCEEDED', 26],
          ['reviewReport', 'SUCCEEDED', 1],
        ],
      );
      const files = readdirSync(join(cwd, 'output', 'reports'));
      assert.equal(
        files.filter((file) => file.startsWith('delays-') && file.endsWith('.json.gz')).length,
        26,
      );
      assert.ok(files.includes('delays-flights-20k-ALL.json.gz'));
      assert.ok(files.includes('review-flights-20k-ALL.json.gz'));
      assert.equal(files.length, 27, `no temporary file should be left: ${files.join(', ')}`);
    });

    test('the durable review prints its steps, what it waited for and the signal', async () => {
      assert.match(run.stdout, /\nDurable flow: reviewReport job (\d+), succeeded \(1 attempt\(s\) charged/);
      assert.match(
        run.stdout,
        /\n {2}compute +step +[\d,]+ ms +20,000 flights: mean -?\d+(\.\d)? min, p95 -?\d+ min/,
      );
      assert.match(
        run.stdout,
        /\n {2}cool-off +sleep +1,000 ms +SCHEDULED, its slot free; ran again [\d,]+ ms after the sleep began/,
      );
      assert.match(
        run.stdout,
        /\n {2}approve +signal +[\d,]+ ms +WAITING for signal "approve" \(deadline 60 s\), its slot free; the producer sent \{"by":"demo producer","approvedAt":"[^"]+"\} inside its own transaction\n/,
      );
      assert.match(
        run.stdout,
        /\n {2}archive +step +[\d,]+ ms +review-flights-20k-ALL\.json\.gz, \d+\.\d kB gzip\n/,
      );
      const [review] = await rawQuery<{ id: number | string }>(
        db,
        "SELECT id FROM nudge_jobs WHERE kind = 'reviewReport'",
      );
      const steps = await rawQuery<{ name: string; type: string; status: string }>(
        db,
        'SELECT name, type, status FROM nudge_job_steps WHERE job_id = ? ORDER BY position',
        [Number(review?.id)],
      );
      assert.deepEqual(
        steps.map((step) => [step.name, step.type, step.status]),
        [
          ['compute', 'step', 'SUCCEEDED'],
          ['cool-off', 'sleep', 'SLEEPING'],
          ['approve', 'signal', 'WAITING'],
          ['archive', 'step', 'SUCCEEDED'],
        ],
      );
      const signals = await rawQuery<{ name: string; by: string }>(
        db,
        "SELECT name, payload ->> 'by' AS by FROM nudge_job_signals WHERE job_id = ?",
        [Number(review?.id)],
      );
      assert.deepEqual(signals, [{ name: 'approve', by: 'demo producer' }]);
    });
  });
}

describe('start.js without NUDGE_DEMO_EXIT', { skip: serverMissing }, () => {
  let db: TestDatabase;
  let cwd: string;
  before(async () => {
    db = await createSqliteDatabase();
    cwd = mkdtempSync(join(tmpdir(), 'nudge-demo-serve-'));
  });
  after(async () => {
    await db.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  test(
    'keeps serving the API after the demo and stops gracefully on SIGTERM',
    { timeout: RUN_TIMEOUT_MS },
    async () => {
      const env = { ...process.env, PORT: '0', DATABASE_URL: db.url, NUDGE_DEMO_EXIT: undefined };
      const child = spawn(process.execPath, [START], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no "keeps serving" line:\n${stdout}\n${stderr}`)),
          60_000,
        );
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /the server keeps serving (http:\/\/\S+)/.exec(stdout);
          if (!match?.[1]) return;
          clearTimeout(timer);
          resolve(match[1]);
        });
      });
      try {
        assert.match(stdout, /Jobs +52 \(26 reports, 26 archives\), all succeeded/);
        const response = await fetch(`${url}/jobs/1`);
        assert.equal(response.status, 200);
        const job = (await response.json()) as { kind: string; status: string };
        assert.deepEqual([job.kind, job.status], ['flightDelayReport', 'SUCCEEDED']);
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await closed, 0, `start.js should exit 0 after SIGTERM:\n${stdout}\n${stderr}`);
      assert.match(stdout, /SIGTERM: stopping the server gracefully/);
      await assert.rejects(fetch(`${url}/jobs/1`), 'the server should be gone with start.js');
    },
  );
});

describe('producer alone', () => {
  let db: TestDatabase;
  let cwd: string;
  before(async () => {
    db = await createSqliteDatabase();
    cwd = mkdtempSync(join(tmpdir(), 'nudge-demo-producer-'));
  });
  after(async () => {
    await db.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  test('exits 1 with one line when the database has no nudge_jobs table', async () => {
    new Database(db.url.slice('sqlite:'.length)).close();
    const run = await runNode(
      PRODUCER,
      { ...process.env, DATABASE_URL: db.url, NUDGE_URL: 'http://127.0.0.1:9' },
      cwd,
    );
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^producer: .*has no nudge_jobs table: start the nudge server on it first.*\n$/);
  });

  test('exits 1 with one line when the server is unreachable', async () => {
    const store = await openStore(db);
    await store.close();
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = await runNode(PRODUCER, { ...process.env, DATABASE_URL: db.url, NUDGE_URL: url }, cwd);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `producer: cannot reach the nudge server at ${url}/nudge: ECONNREFUSED (the 26 jobs are committed: a server will run them)\n`,
    );
    assert.match(run.stdout, /Enqueued 26 flightDelayReport jobs/);
  });

  test('exits 2 with the usage on a bad option', async () => {
    const run = await runNode(PRODUCER, { ...process.env }, cwd, ['--dataset', 'flights-1m']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--dataset must be one of flights-2k, flights-5k, flights-10k, flights-20k/);
    assert.match(run.stderr, /usage: node apps\/demo\/dist\/producer\.js/);
  });
});
