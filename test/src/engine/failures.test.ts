import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Job } from '@nudge/core';
import type { Engine } from '@nudge/engine';
import type { Store } from '@nudge/store';
import {
  createEngine,
  createScratch,
  createMigratedDatabase,
  describeEngine,
  openStore,
  waitForEvent,
  waitUntil,
  type Scratch,
  type TestDatabase,
} from '../helpers/index.js';

describe('engine: failures are contained and retried', () => {
  let db: TestDatabase;
  let store: Store;
  let engine: Engine;
  let scratch: Scratch;

  before(async () => {
    db = await createMigratedDatabase('sqlite');
    store = await openStore(db);
    scratch = createScratch();
    engine = await createEngine(store, {
      threads: 1,
      jobTimeoutMs: 500,
      abortGraceMs: 100,
      maxOldGenerationSizeMb: 48,
      backoff: { baseMs: 200, maxMs: 10_000, jitterRatio: 0 },
    });
    engine.start();
  });
  after(async () => {
    await engine.stop();
    await store.close();
    await db.drop();
    scratch.remove();
  });

  const settled = (id: number): Promise<Job> =>
    waitUntil(
      async () => {
        const job = await store.getJob(id);
        return job && ['SUCCEEDED', 'FAILED'].includes(job.status) ? job : undefined;
      },
      20_000,
      20,
      `job ${id} to settle`,
    );

  const threadOfNextJob = async (): Promise<number> => {
    const job = await store.enqueue({ kind: 'whichThread' });
    engine.requestClaim();
    const done = await settled(job.id);
    assert.equal(done.status, 'SUCCEEDED');
    return (done.result as { threadId: number }).threadId;
  };

  it('retries a throwing handler with exponential backoff, then fails it with the error', async () => {
    const failures: Array<{ status: string; retryDelayMs: number; gapMs: number }> = [];
    const job = await store.enqueue({
      kind: 'fail',
      payload: { message: 'upstream said no' },
      maxAttempts: 3,
    });
    const onFailed = (event: { id: number; status: string; retryDelayMs: number }): void => {
      if (event.id !== job.id) return;
      void Promise.all([store.getJob(job.id), store.now()]).then(([row, now]) => {
        failures.push({
          status: event.status,
          retryDelayMs: event.retryDelayMs,
          gapMs: row ? row.runAt.getTime() - now.getTime() : NaN,
        });
      });
    };
    engine.on('job:failed', onFailed);
    engine.requestClaim();
    const done = await settled(job.id);
    engine.off('job:failed', onFailed);
    assert.equal(done.status, 'FAILED');
    assert.equal(done.attempts, 3);
    assert.equal(done.lastError, 'upstream said no');
    await waitUntil(() => (failures.length === 3 ? true : undefined));
    // Formula: baseMs * 2^(attempt - 1) with jitter 0 → 200 ms, then 400 ms.
    assert.deepEqual(
      failures.map((f) => [f.status, f.retryDelayMs]),
      [
        ['SCHEDULED', 200],
        ['SCHEDULED', 400],
        ['FAILED', 800],
      ],
    );
    for (const f of failures.slice(0, 2)) {
      assert.ok(f.gapMs > 0 && f.gapMs <= f.retryDelayMs, `run_at is now + delay (gap ${f.gapMs} ms)`);
    }
  });

  it('a timeout terminates the handler thread and fails the attempt', async () => {
    const markerFile = join(scratch.dir, 'spin-thread');
    const job = await store.enqueue({ kind: 'spin', payload: { markerFile }, maxAttempts: 1 });
    engine.requestClaim();
    const done = await settled(job.id);
    assert.equal(done.status, 'FAILED');
    assert.match(
      done.lastError ?? '',
      /timed out after 500 ms and ignored its abort signal; the handler's thread was terminated/,
    );
    const spunOn = Number(readFileSync(markerFile, 'utf8'));
    const nextThread = await threadOfNextJob();
    assert.notEqual(nextThread, spunOn, 'the spinning thread was replaced');
  });

  it('a handler that exits its thread fails its attempt, naming the call, and the pool recovers', async () => {
    const job = await store.enqueue({ kind: 'crash', payload: { code: 7 }, maxAttempts: 1 });
    engine.requestClaim();
    const done = await settled(job.id);
    assert.equal(done.status, 'FAILED');
    assert.equal(done.lastError, 'the handler called process.exit(7)');
    await threadOfNextJob();
  });

  it('a handler that throws from a timer fails its attempt; its thread lives on', async () => {
    const before = await threadOfNextJob();
    const job = await store.enqueue({ kind: 'throwLater', maxAttempts: 1 });
    engine.requestClaim();
    const done = await settled(job.id);
    assert.equal(done.status, 'FAILED');
    assert.equal(done.lastError, 'threw outside its promise: thrown from a timer');
    assert.equal(await threadOfNextJob(), before, 'the same thread serves the next job');
  });

  it('a thread out of memory fails its attempt and the service lives on', async () => {
    const job = await store.enqueue({ kind: 'oom', maxAttempts: 1 });
    engine.requestClaim();
    const done = await settled(job.id);
    assert.equal(done.status, 'FAILED');
    assert.match(done.lastError ?? '', /ran out of memory \(limit 48 MB\)/);
    await threadOfNextJob();
  });
});

/** First retry delays of the per-kind case, in ms: the engine's curve and `failUntilFixed`'s own. */
const DEFAULT_BASE_MS = 3000;
const KIND_BASE_MS = 7000;

describeEngine('engine: per-kind backoff', (t) => {
  it('a per-kind backoff overrides the default curve in the stored run_at', async () => {
    const engine = await t.engine({
      threads: 1,
      backoff: { baseMs: DEFAULT_BASE_MS, maxMs: 60_000, jitterRatio: 0 },
      backoffByKind: { failUntilFixed: { baseMs: KIND_BASE_MS } },
    });
    const ofKind = await t.store.enqueue({
      kind: 'failUntilFixed',
      payload: { okFile: join(t.scratch.dir, 'never') },
      maxAttempts: 3,
    });
    const ofDefault = await t.store.enqueue({ kind: 'fail', maxAttempts: 3 });
    const failedOnce = (id: number) =>
      waitForEvent<{ id: number; status: string }>(engine, 'job:failed', (event) => event.id === id);
    const failed = Promise.all([failedOnce(ofKind.id), failedOnce(ofDefault.id)]);
    engine.start();
    await failed;
    for (const [job, delayMs] of [
      [ofKind, KIND_BASE_MS],
      [ofDefault, DEFAULT_BASE_MS],
    ] as const) {
      const [row, now] = await Promise.all([t.store.getJob(job.id), t.store.now()]);
      assert.ok(row);
      assert.equal(row.status, 'SCHEDULED');
      assert.equal(row.attempts, 1);
      const failedAt = row.errors.at(-1)?.at;
      assert.ok(failedAt, 'the failure is recorded with its time');
      // Both times come from the database clock in one statement: run_at is failure + delay.
      assert.equal(row.runAt.getTime() - failedAt.getTime(), delayMs, `${job.kind}: run_at - failed at`);
      if (job === ofKind) {
        const waitMs = row.runAt.getTime() - now.getTime();
        assert.ok(
          waitMs > KIND_BASE_MS - 5000 && waitMs <= KIND_BASE_MS,
          `due in ${waitMs} ms by the database clock`,
        );
      }
    }
  });
});
