// Job logs (ctx.log) in the store: appends fenced by the attempt's version, the per-job caps in
// lines and bytes with an exact count of the lines dropped, pages read by seq, a refused append
// isolated from the rest of its batch, and retention taking a job's lines with it.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { fitJobLogLine, type JobLogLine } from '@nudge/core';
import type { JobLogAppend, JobLogCaps } from '@nudge/store';
import { rawQuery } from '../helpers/index.js';
import { describeStore, later, leaseOf, type StoreCase } from './store-fixture.js';

const HOUR_MS = 3_600_000;
const WIDE: JobLogCaps = { linesPerJob: 1000, bytesPerJob: 1_000_000 };

const lines = (count: number, prefix = 'line'): JobLogLine[] =>
  Array.from({ length: count }, (_, i) => fitJobLogLine('info', `${prefix} ${i + 1}`, null));

/** A claimed job of kind `k`, and the append of its attempt for `lines`. */
async function running(t: StoreCase): Promise<{ id: number; version: number; attempt: number }> {
  const job = await t.store.enqueue({ kind: 'k' });
  const [claimed] = await t.claim(1, { kinds: ['k'] });
  assert.equal(claimed?.id, job.id);
  return { id: claimed.id, version: claimed.version, attempt: claimed.attempt };
}

const appendOf = (
  lease: { id: number; version: number; attempt: number },
  list: JobLogLine[],
): JobLogAppend => ({
  ...lease,
  lines: list,
});

describeStore('job logs', (t) => {
  it('stores lines in order with seq from 1, levels, fields and the database time, read by pages', async () => {
    const job = await running(t);
    const before = await t.store.now();
    const written = await t.store.appendJobLogs(
      [
        appendOf(job, [
          fitJobLogLine('debug', 'starting', null),
          fitJobLogLine('warn', 'slow', '{"ms":1200,"host":"a"}'),
          fitJobLogLine('error', 'boom', null),
        ]),
      ],
      WIDE,
    );
    assert.deepEqual(written, [{ id: job.id, version: job.version, stored: 3, dropped: 0 }]);
    const page = await t.store.readJobLogs({ jobId: job.id, after: 0, limit: 2 });
    assert.ok(page);
    assert.deepEqual(
      page.lines.map((l) => [
        l.seq,
        l.attempt,
        l.level,
        l.message,
        l.fieldsJson && (JSON.parse(l.fieldsJson) as unknown),
      ]),
      [
        [1, 1, 'debug', 'starting', null],
        [2, 1, 'warn', 'slow', { ms: 1200, host: 'a' }],
      ],
    );
    assert.ok(
      page.lines.every((l) => l.at.getTime() >= before.getTime() - 1000),
      'database time',
    );
    assert.equal(page.storedLines, 3);
    assert.equal(page.dropped, 0);
    const next = await t.store.readJobLogs({ jobId: job.id, after: 2, limit: 2 });
    assert.deepEqual(
      next?.lines.map((l) => l.seq),
      [3],
    );
    const empty = await t.store.readJobLogs({ jobId: job.id, after: 3, limit: 2 });
    assert.deepEqual(empty?.lines, []);
  });

  it('gives an empty log for a job that never logged, and nothing for no job', async () => {
    const job = await t.store.enqueue({ kind: 'k' });
    assert.deepEqual(await t.store.readJobLogs({ jobId: job.id, after: 0, limit: 10 }), {
      lines: [],
      storedLines: 0,
      storedBytes: 0,
      dropped: 0,
    });
    assert.equal(await t.store.readJobLogs({ jobId: job.id + 1000, after: 0, limit: 10 }), undefined);
  });

  it('holds the line cap across appends and attempts, counting every line dropped', async () => {
    const caps: JobLogCaps = { linesPerJob: 5, bytesPerJob: 1_000_000 };
    const job = await running(t);
    assert.deepEqual(await t.store.appendJobLogs([appendOf(job, lines(3))], caps), [
      { id: job.id, version: job.version, stored: 3, dropped: 0 },
    ]);
    assert.deepEqual(
      await t.store.appendJobLogs([{ ...appendOf(job, lines(4, 'more')), dropped: 2 }], caps),
      [{ id: job.id, version: job.version, stored: 2, dropped: 4 }],
    );
    await t.store.fail([{ ...leaseOf(job), error: 'again', retryDelayMs: 0 }]);
    const [second] = await t.claim(1, { kinds: ['k'] });
    assert.equal(second?.attempt, 2);
    const retry = await t.store.appendJobLogs([appendOf(second, lines(1, 'second'))], caps);
    assert.deepEqual(retry, [{ id: job.id, version: second.version, stored: 0, dropped: 1 }]);
    const page = await t.store.readJobLogs({ jobId: job.id, after: 0, limit: 100 });
    assert.deepEqual(
      page?.lines.map((l) => l.message),
      ['line 1', 'line 2', 'line 3', 'more 1', 'more 2'],
    );
    assert.equal(page?.storedLines, 5);
    assert.equal(page?.dropped, 5, 'two over the cap, two dropped before the store, one of the retry');
  });

  it('holds the byte cap: the first line that would pass it and every later one are dropped', async () => {
    const caps: JobLogCaps = { linesPerJob: 100, bytesPerJob: 25 };
    const job = await running(t);
    const list = [
      fitJobLogLine('info', 'x'.repeat(10), null),
      fitJobLogLine('info', 'y'.repeat(6), '{"a":1}'), // 13 bytes: 23 in all
      fitJobLogLine('info', 'z'.repeat(5), null), // would make 28
      fitJobLogLine('info', 'w', null), // would fit, but comes after a drop
    ];
    assert.deepEqual(await t.store.appendJobLogs([appendOf(job, list)], caps), [
      { id: job.id, version: job.version, stored: 2, dropped: 2 },
    ]);
    assert.deepEqual(await t.store.appendJobLogs([appendOf(job, lines(1, 'w'))], caps), [
      { id: job.id, version: job.version, stored: 0, dropped: 1 },
    ]);
    const page = await t.store.readJobLogs({ jobId: job.id, after: 0, limit: 100 });
    assert.equal(page?.storedBytes, 23);
    assert.equal(page?.dropped, 3);
  });

  it('holds the caps against concurrent appends of one job', async () => {
    const caps: JobLogCaps = { linesPerJob: 50, bytesPerJob: 1_000_000 };
    const job = await running(t);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => t.store.appendJobLogs([appendOf(job, lines(10, `w${i}`))], caps)),
    );
    const stored = results.flat().reduce((sum, r) => sum + r.stored, 0);
    const dropped = results.flat().reduce((sum, r) => sum + r.dropped, 0);
    assert.equal(stored, 50);
    assert.equal(dropped, 50);
    const page = await t.store.readJobLogs({ jobId: job.id, after: 0, limit: 1000 });
    assert.equal(page?.lines.length, 50);
    assert.deepEqual(
      page?.lines.map((l) => l.seq),
      Array.from({ length: 50 }, (_, i) => i + 1),
      'no gap and no repeat in seq',
    );
  });

  it("refuses a lost attempt's lines, and keeps an attempt's lines that come after its outcome", async () => {
    const job = await running(t);
    await t.store.complete([{ ...leaseOf(job), resultJson: null }]);
    assert.equal((await t.store.appendJobLogs([appendOf(job, lines(1, 'late'))], WIDE)).length, 1);
    const other = await running(t);
    const now = await t.store.now();
    // The lease expires and the sweep gives the job to another attempt: a new version.
    await t.store.sweepExpired({ retryDelayMs: () => 0, now: later(now, 60_000) });
    const refused = await t.store.appendJobLogs([appendOf(other, lines(2, 'lost'))], WIDE);
    assert.deepEqual(refused, []);
    assert.equal((await t.store.readJobLogs({ jobId: other.id, after: 0, limit: 10 }))?.lines.length, 0);
    assert.equal((await t.store.readJobLogs({ jobId: job.id, after: 0, limit: 10 }))?.lines.length, 1);
  });

  it("refuses the lines of a cancelled job's attempt", async () => {
    const job = await running(t);
    await t.store.appendJobLogs([appendOf(job, lines(1, 'before'))], WIDE);
    assert.equal((await t.store.cancelJob(job.id)).outcome, 'changed');
    assert.deepEqual(await t.store.appendJobLogs([appendOf(job, lines(2, 'after'))], WIDE), []);
    const page = await t.store.readJobLogs({ jobId: job.id, after: 0, limit: 10 });
    assert.deepEqual(
      page?.lines.map((l) => l.message),
      ['before 1'],
    );
  });

  it("refuses the lines of running attempts a bulk cancel took, and keeps the others' lines", async () => {
    const a = await running(t);
    const b = await running(t);
    const other = await t.store.enqueue({ kind: 'other' });
    const [kept] = await t.claim(1, { kinds: ['other'] });
    assert.equal(kept?.id, other.id);
    const result = await t.store.cancelJobs({ kind: 'k', statuses: ['RUNNING'] });
    assert.equal(result.changed, 2);
    const written = await t.store.appendJobLogs(
      [appendOf(a, lines(1)), appendOf(b, lines(1)), appendOf(kept, lines(2))],
      WIDE,
    );
    assert.deepEqual(
      written.map((w) => [w.id, w.stored]),
      [[kept.id, 2]],
    );
  });

  it('writes the rest of a batch when the database refuses one append', async () => {
    const a = await running(t);
    const bad = await running(t);
    const c = await running(t);
    // Fields that are not an object break the table's check on both dialects.
    const refused: JobLogLine = { level: 'info', message: 'bad', fieldsJson: '[1,2]' };
    const written = await t.store.appendJobLogs(
      [appendOf(a, lines(2)), appendOf(bad, [refused]), appendOf(c, lines(3))],
      WIDE,
    );
    assert.deepEqual(
      written.map((w) => [w.id, w.stored]),
      [
        [a.id, 2],
        [c.id, 3],
      ],
    );
    assert.equal((await t.store.readJobLogs({ jobId: bad.id, after: 0, limit: 10 }))?.lines.length, 0);
  });

  it("retention deletes a finished job's lines and counters, and leaves those of kept jobs", async () => {
    const old = await running(t);
    const kept = await running(t);
    await t.store.appendJobLogs([appendOf(old, lines(4)), appendOf(kept, lines(2))], WIDE);
    const past = later(await t.store.now(), -2 * HOUR_MS);
    await t.store.complete([{ ...leaseOf(old), resultJson: null }], past);
    await t.store.complete([{ ...leaseOf(kept), resultJson: null }]);
    const pruned = await t.store.pruneFinished({
      status: 'SUCCEEDED',
      kind: 'k',
      olderThanMs: HOUR_MS,
      limit: 100,
    });
    assert.equal(pruned, 1);
    assert.equal(await t.store.readJobLogs({ jobId: old.id, after: 0, limit: 10 }), undefined);
    const rows = await rawQuery<{ n: number | string }>(
      t.db,
      'SELECT count(*) AS n FROM nudge_job_logs WHERE job_id = ' + String(old.id),
    );
    assert.equal(Number(rows[0]?.n), 0, 'no line outlives its job');
    const counts = await rawQuery<{ n: number | string }>(
      t.db,
      'SELECT count(*) AS n FROM nudge_job_log_counts WHERE job_id = ' + String(old.id),
    );
    assert.equal(Number(counts[0]?.n), 0);
    assert.equal((await t.store.readJobLogs({ jobId: kept.id, after: 0, limit: 10 }))?.storedLines, 2);
  });
});
