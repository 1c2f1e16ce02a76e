// ctx.log in real threads, for both execution classes: lines reach the store before the outcome
// (a reader that sees the job finished reads every kept line), the service's log gets each line
// with the job's id and attempt, retries add their own attempt's lines, the caps hold, and a slow
// log write delays an outcome by at most logFlushWaitMs.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from '@nudge/core';
import type { JobLogAppend, JobLogCaps } from '@nudge/store';
import { describeEngine, waitForEvent, waitUntil } from '../helpers/index.js';

/** A logger that keeps what it is given. */
function recordingLogger(): Logger & {
  readonly lines: Array<{ level: string; fields: object; message?: string }>;
} {
  const lines: Array<{ level: string; fields: object; message?: string }> = [];
  const at =
    (level: string) =>
    (fields: object, message?: string): void =>
      void lines.push({ level, fields, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const readAll = async (
  store: { readJobLogs: (q: { jobId: number; after: number; limit: number }) => Promise<unknown> },
  id: number,
) =>
  (await store.readJobLogs({ jobId: id, after: 0, limit: 1000 })) as {
    lines: Array<{ seq: number; attempt: number; level: string; message: string; fieldsJson: string | null }>;
    storedLines: number;
    dropped: number;
  };

describeEngine('job logs (ctx.log)', (t) => {
  for (const kind of ['logLines', 'asyncLogLines']) {
    it(`${kind}: every line written before the outcome is stored when the job is seen finished`, async () => {
      const logger = recordingLogger();
      // No timed send or write within the test: only the settle path carries the lines.
      const engine = await t.engine({ threads: 1, progressIntervalMs: 60_000, logger });
      const job = await t.store.enqueue({ kind, payload: { count: 30 } });
      engine.start();
      await waitForEvent(engine, 'job:succeeded', (lease: { id: number }) => lease.id === job.id);
      const read = await readAll(t.store, job.id);
      assert.equal(read.lines.length, 31);
      const first = read.lines[0];
      assert.deepEqual(
        [first?.seq, first?.attempt, first?.level, first?.message, JSON.parse(first?.fieldsJson ?? 'null')],
        [1, 1, 'info', 'line 1 of attempt 1', { i: 1 }],
      );
      assert.equal(read.lines[30]?.level, 'debug');
      assert.equal(read.dropped, 0);
      const serviceLines = logger.lines.filter((l) => /^line \d+ of attempt/.test(l.message ?? ''));
      assert.equal(serviceLines.length, 30);
      assert.deepEqual(serviceLines[4]?.fields, {
        jobId: job.id,
        kind,
        queue: 'default',
        attempt: 1,
        version: (serviceLines[4]?.fields as { version: number }).version,
        fields: { i: 5 },
      });
    });
  }

  it("a retry's lines follow the failed attempt's, each with its attempt", async () => {
    const engine = await t.engine({ threads: 1, progressIntervalMs: 50 });
    const job = await t.store.enqueue({
      kind: 'logLines',
      payload: { count: 2, failUntil: 2 },
      maxAttempts: 3,
    });
    engine.start();
    await waitForEvent(engine, 'job:succeeded', (lease: { id: number }) => lease.id === job.id);
    const read = await readAll(t.store, job.id);
    assert.deepEqual(
      read.lines.map((l) => [l.seq, l.attempt, l.level, l.message]),
      [
        [1, 1, 'info', 'line 1 of attempt 1'],
        [2, 1, 'info', 'line 2 of attempt 1'],
        [3, 1, 'warn', 'giving up this attempt'],
        [4, 2, 'info', 'line 1 of attempt 2'],
        [5, 2, 'info', 'line 2 of attempt 2'],
        [6, 2, 'debug', 'done'],
      ],
    );
  });

  it('caps hold in lines and bytes, and the lines dropped are counted exactly', async () => {
    const engine = await t.engine({ threads: 2, logLinesPerJob: 5, logBytesPerJob: 1_000_000 });
    const byLines = await t.store.enqueue({ kind: 'logLines', payload: { count: 20 } });
    engine.start();
    await waitForEvent(engine, 'job:succeeded', (lease: { id: number }) => lease.id === byLines.id);
    const read = await readAll(t.store, byLines.id);
    assert.equal(read.storedLines, 5);
    assert.equal(read.dropped, 16, '15 more info lines and the debug line');
  });

  it('a slow log write delays an outcome by at most logFlushWaitMs, and its lines land after it', async () => {
    const flushWaitMs = 300;
    const engine = await t.engine({ threads: 1, progressIntervalMs: 60_000, logFlushWaitMs: flushWaitMs });
    // The real store, its log writes held back for 3 s (as a database under a long lock would).
    const append = t.store.appendJobLogs.bind(t.store);
    t.store.appendJobLogs = async (appends: readonly JobLogAppend[], caps: JobLogCaps) => {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      return append(appends, caps);
    };
    const job = await t.store.enqueue({ kind: 'logLines', payload: { count: 5 } });
    const ended = waitForEvent(engine, 'job:ended', (e: { job: { id: number } }) => e.job.id === job.id);
    const succeeded = waitForEvent(engine, 'job:succeeded', (lease: { id: number }) => lease.id === job.id);
    engine.start();
    await ended;
    const endedAt = performance.now();
    await succeeded;
    const outcomeMs = performance.now() - endedAt;
    assert.ok(
      outcomeMs < flushWaitMs + 1500,
      `the outcome took ${Math.round(outcomeMs)} ms after the handler`,
    );
    assert.ok(outcomeMs >= flushWaitMs - 50, `it waited for the lines (${Math.round(outcomeMs)} ms)`);
    assert.equal((await readAll(t.store, job.id)).lines.length, 0, 'no line yet: the write is held');
    await waitUntil(
      async () => ((await readAll(t.store, job.id)).lines.length === 6 ? true : undefined),
      10_000,
    );
  });
});
