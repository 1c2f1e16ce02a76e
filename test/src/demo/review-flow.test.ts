// The demo's durable review (reviewReport) on a real server loading the demo's handler module, on
// both dialects: the producer's side of the flow (review-flow.ts) with the approval sent inside a
// producer transaction, a review whose approval never comes, and a signal refused once the review
// has finished. The whole demo, printout included, runs in demo-run.test.ts.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { createClient, type JobView, type NudgeClient } from '@nudge/client';
import {
  APPROVE_SIGNAL,
  formatReview,
  openProducerDatabase,
  REVIEW_KIND,
  runReviewFlow,
  type ProducerDatabase,
  type ReviewResult,
} from '@nudge/demo';
import { startServer, type RunningServer } from '@nudge/server';
import { createTestDatabase, DIALECTS, rawQuery, type TestDatabase } from '../helpers/index.js';

const DEMO_HANDLERS = join(dirname(createRequire(import.meta.url).resolve('@nudge/demo')), 'handlers.js');

/** Longest wait for one review, in ms: its cool-off is 1 s, the rest is a few claims. */
const REVIEW_TIMEOUT_MS = 60_000;

for (const dialect of DIALECTS) {
  describe(`the demo's durable review on ${dialect}`, () => {
    let db: TestDatabase;
    let dir: string;
    let server: RunningServer;
    let client: NudgeClient;
    let producer: ProducerDatabase;

    before(async () => {
      db = await createTestDatabase(dialect);
      dir = mkdtempSync(join(tmpdir(), 'nudge-demo-review-'));
      server = await startServer({
        handlers: DEMO_HANDLERS,
        databaseUrl: db.url,
        port: 0,
        threads: 1,
        logLevel: 'error',
      });
      client = createClient({ baseUrl: server.url, pollIntervalMs: 25 });
      producer = openProducerDatabase(db.url);
    });

    after(async () => {
      await producer.close();
      await server.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const waitFor = (id: number): Promise<JobView> => client.waitFor(id, { timeoutMs: REVIEW_TIMEOUT_MS });

    test('computes, sleeps, waits for the approval the producer sends in its transaction, then archives', async () => {
      const stop = new AbortController();
      const outputDir = join(dir, 'approved');
      const run = await runReviewFlow(client, producer, {
        dataset: 'flights-2k',
        outputDir,
        pollIntervalMs: 25,
        waitFor,
        signal: stop.signal,
        deadline: Date.now() + REVIEW_TIMEOUT_MS,
      });
      assert.equal(run.view.status, 'SUCCEEDED', JSON.stringify(run.view));
      const result = run.view.result as unknown as ReviewResult;
      assert.deepEqual(result.approval, run.approval);
      assert.equal(result.summary.total.flights, 2000);
      assert.equal(result.summary.origin, 'ALL');
      // Steps in the order first recorded; the sleep and the wait stay as they were written.
      assert.deepEqual(
        run.view.steps?.map((step) => [step.name, step.type, step.status]),
        [
          ['compute', 'step', 'SUCCEEDED'],
          ['cool-off', 'sleep', 'SLEEPING'],
          ['approve', 'signal', 'WAITING'],
          ['archive', 'step', 'SUCCEEDED'],
        ],
      );
      // Neither the sleep nor the wait was charged.
      assert.equal(run.view.attempts, 1);
      const archived = JSON.parse(
        gunzipSync(readFileSync(result.archive?.path ?? '')).toString('utf8'),
      ) as unknown;
      assert.deepEqual(archived, { summary: result.summary, approval: run.approval });
      assert.deepEqual(readdirSync(outputDir), ['review-flights-2k-ALL.json.gz']);
      const signals = await rawQuery<{ name: string; by: string }>(
        db,
        "SELECT name, payload ->> 'by' AS by FROM nudge_job_signals WHERE job_id = ?",
        [run.view.id],
      );
      assert.deepEqual(signals, [{ name: APPROVE_SIGNAL, by: 'demo producer' }]);

      const lines = formatReview(run);
      assert.match(lines[0] ?? '', /^Durable flow: reviewReport job \d+, succeeded \(1 attempt\(s\) charged/);
      assert.match(lines[1] ?? '', /^ {2}compute +step +\d[\d,]* ms +2,000 flights: mean -?\d/);
      assert.match(
        lines[2] ?? '',
        /^ {2}cool-off +sleep +1,000 ms +SCHEDULED, its slot free; ran again [\d,]+ ms/,
      );
      assert.match(
        lines[3] ?? '',
        /^ {2}approve +signal +[\d,]+ ms +WAITING for signal "approve" \(deadline 60 s\), its slot free; the producer sent \{"by":"demo producer",.*\} inside its own transaction$/,
      );
      assert.match(
        lines[4] ?? '',
        /^ {2}archive +step +[\d,]+ ms +review-flights-2k-ALL\.json\.gz, \d+\.\d kB gzip$/,
      );
    });

    test('returns without an archive when no approval comes before its deadline', async () => {
      const outputDir = join(dir, 'timed-out');
      const [id] = await producer.enqueueJobs([
        {
          kind: REVIEW_KIND,
          payload: { dataset: 'flights-2k', origin: 'ORD', coolOffMs: 0, approvalTimeoutMs: 200, outputDir },
        },
      ]);
      await client.nudge();
      const done = await waitFor(id as number);
      assert.equal(done.status, 'SUCCEEDED', JSON.stringify(done));
      const result = done.result as unknown as ReviewResult;
      assert.equal(result.approval, null);
      assert.equal(result.archive, null);
      assert.equal(result.summary.origin, 'ORD');
      const view = await client.get(id as number);
      assert.deepEqual(
        view.steps?.map((step) => [step.name, step.status]),
        [
          ['compute', 'SUCCEEDED'],
          ['cool-off', 'SLEEPING'],
          ['approve', 'TIMED_OUT'],
        ],
      );
      assert.equal(existsSync(outputDir), false, 'nothing is archived without an approval');
    });

    test("refuses the producer's approval of a finished review, and commits nothing", async () => {
      const [id] = await producer.enqueueJobs([
        { kind: REVIEW_KIND, payload: { dataset: 'flights-2k', coolOffMs: 0, approvalTimeoutMs: 1 } },
      ]);
      await client.nudge();
      assert.equal((await waitFor(id as number)).status, 'SUCCEEDED');
      await assert.rejects(producer.sendSignal(id as number, APPROVE_SIGNAL, { by: 'late' }), {
        code: 'JOB_STATE_CONFLICT',
      });
      const signals = await rawQuery<{ n: number | string }>(
        db,
        'SELECT count(*) AS n FROM nudge_job_signals WHERE job_id = ?',
        [id],
      );
      assert.equal(Number(signals[0]?.n), 0);
    });
  });
}
