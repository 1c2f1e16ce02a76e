// Logs under load: 1,000 jobs each logging 100 lines (and a last debug line) against caps lower
// than that. Every job ends within both caps, with its lines numbered without a gap and the rest
// counted as dropped exactly; and no outcome waits on the log writes past a bound: the time from
// the handler's return to the job's finished_at (database clock, same host) stays under
// OUTCOME_BOUND_MS.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { nearestRank } from '@nudge/core';
import { describeEngine, rawQuery, waitUntil } from '../helpers/index.js';

const JOBS = 1000;
const LINES = 100;
const CAPS = { logLinesPerJob: 50, logBytesPerJob: 4000 };
/** `logFlushWaitMs` of the run: the most an outcome waits for its lines. */
const FLUSH_WAIT_MS = 1000;
/**
 * The bound asserted on every job: the flush wait, plus room for the outcome's own batched write
 * and the event loop of a loaded 2-core host. Measured numbers are far below (see the report).
 */
const OUTCOME_BOUND_MS = FLUSH_WAIT_MS + 4000;

describeEngine('job logs under load', (t) => {
  it(`${JOBS} jobs × ${LINES} lines: caps hold, drops counted exactly, outcomes within ${OUTCOME_BOUND_MS} ms`, async () => {
    const engine = await t.engine({
      asyncThreads: 1,
      asyncConcurrency: 100,
      progressIntervalMs: 200,
      logFlushWaitMs: FLUSH_WAIT_MS,
      ...CAPS,
    });
    // Half the jobs write short lines (the line cap binds), half long ones (the byte cap binds).
    await t.store.enqueueMany(
      Array.from({ length: JOBS }, (_, i) => ({
        kind: 'asyncLogLines',
        payload: { count: LINES, pad: i % 2 === 0 ? 0 : 100 },
      })),
    );
    const started = performance.now();
    engine.start();
    await waitUntil(
      async () => ((await t.store.countByStatus()).SUCCEEDED === JOBS ? true : undefined),
      300_000,
      200,
      'every job to succeed',
    );
    const drainMs = performance.now() - started;
    await engine.stop();

    const counts = await rawQuery<{
      job_id: number | string;
      lines: number;
      bytes: number | string;
      dropped: number | string;
    }>(t.db, 'SELECT job_id, lines, bytes, dropped FROM nudge_job_log_counts');
    assert.equal(counts.length, JOBS, 'every job logged');
    const stored = await rawQuery<{ job_id: number | string; n: number | string; top: number | string }>(
      t.db,
      'SELECT job_id, count(*) AS n, max(seq) AS top FROM nudge_job_logs GROUP BY job_id',
    );
    const rows = new Map(stored.map((r) => [Number(r.job_id), r]));
    let byLines = 0;
    let byBytes = 0;
    for (const c of counts) {
      const lines = Number(c.lines);
      const bytes = Number(c.bytes);
      assert.ok(lines <= CAPS.logLinesPerJob, `job ${c.job_id}: ${lines} lines`);
      assert.ok(bytes <= CAPS.logBytesPerJob, `job ${c.job_id}: ${bytes} bytes`);
      assert.equal(lines + Number(c.dropped), LINES + 1, `job ${c.job_id}: every line stored or counted`);
      const row = rows.get(Number(c.job_id));
      assert.equal(Number(row?.n), lines, `job ${c.job_id}: the rows are the count`);
      assert.equal(Number(row?.top), lines, `job ${c.job_id}: seq 1 to ${lines}, no gap`);
      if (lines === CAPS.logLinesPerJob) byLines += 1;
      else byBytes += 1;
    }
    assert.equal(byLines, JOBS / 2, 'short lines: the line cap binds');
    assert.equal(byBytes, JOBS / 2, 'long lines: the byte cap binds');

    // The handler's return (its clock) to the outcome (the database's clock, on this host).
    const finished = await rawQuery<{ finished_at: string | Date; result: string | { returnedAt: number } }>(
      t.db,
      "SELECT finished_at, result FROM nudge_jobs WHERE kind = 'asyncLogLines'",
    );
    const delays = finished
      .map((r) => {
        const result =
          typeof r.result === 'string' ? (JSON.parse(r.result) as { returnedAt: number }) : r.result;
        return new Date(r.finished_at).getTime() - result.returnedAt;
      })
      .sort((a, b) => a - b);
    const [p50, p95, p99] = [50, 95, 99].map((q) => nearestRank(delays, q));
    const max = delays.at(-1) ?? 0;
    console.log(
      `${t.store.dialect}: ${JOBS} jobs in ${Math.round(drainMs)} ms; handler return → outcome written: p50 ${p50} ms, p95 ${p95} ms, p99 ${p99} ms, max ${max} ms`,
    );
    assert.ok(max < OUTCOME_BOUND_MS, `the slowest outcome came ${max} ms after its handler returned`);
  });
});
