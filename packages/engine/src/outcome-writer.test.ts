import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '@nudge/core';
import type { ClaimedJob, CompleteInput, JobLease, Store } from '@nudge/store';
import {
  DIALECTS,
  createMigratedDatabase,
  installFaults,
  installPoisonRows,
  openStore,
  rawQuery,
  type TestDatabase,
} from '@nudge/test-databases';
import type { EngineEventName } from './engine-events.js';
import { OutcomeWriter, type Outcome } from './outcome-writer.js';

/** Resolves after `depth` turns of the microtask queue. */
async function microtasks(depth: number): Promise<void> {
  for (let i = 0; i < depth; i += 1) await Promise.resolve();
}

/** Polls `check` every 5 ms until it holds; rejects naming `what` after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function completion(job: ClaimedJob): Outcome {
  return { type: 'complete', input: { id: job.id, version: job.version, resultJson: '1' }, job };
}

for (const dialect of DIALECTS) {
  describe(`OutcomeWriter: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    beforeEach(async () => {
      db = await createMigratedDatabase(dialect);
      store = await openStore(db);
    });
    afterEach(async () => {
      await store.close();
      await db.drop();
    });

    /** Enqueues and claims `count` jobs of kind `k`. */
    async function claimed(count: number): Promise<ClaimedJob[]> {
      await store.enqueueMany(Array.from({ length: count }, () => ({ kind: 'k' })));
      const jobs = await store.claim({
        workerId: 'w1',
        leaseMs: 60_000,
        groups: [{ kinds: ['k'], limit: count }],
      });
      return jobs.sort((a, b) => a.id - b.id);
    }

    /** A writer over `store` whose statements and settled leases are recorded. */
    function recordingWriter(options: { retryBaseMs?: number } = {}) {
      const statements: number[][] = [];
      const settled: JobLease[] = [];
      const events: EngineEventName[] = [];
      const recording: Store = Object.create(store) as Store;
      // Called on the store itself: its private fields are not reachable through the prototype.
      recording.onIsolatedWrite = (listener) => store.onIsolatedWrite(listener);
      recording.complete = (items: readonly CompleteInput[], now?: Date) => {
        statements.push(items.map((item) => item.id));
        return store.complete(items, now);
      };
      const writer = new OutcomeWriter({
        store: recording,
        logger: silentLogger,
        emit: (name) => void events.push(name),
        onWritten: (leases) => void settled.push(...leases),
        ...options,
      });
      return { writer, statements, settled, events };
    }

    it('writes an outcome at once, and those that arrive during a write together in the next', async () => {
      const jobs = await claimed(4);
      const w = recordingWriter();
      w.writer.push(completion(jobs[0]!));
      for (const job of jobs.slice(1)) w.writer.push(completion(job));
      await w.writer.flush();
      assert.deepEqual(w.statements, [[jobs[0]!.id], jobs.slice(1).map((job) => job.id)]);
      assert.equal(w.writer.pending, 0);
      assert.deepEqual(
        w.settled.map((lease) => lease.id),
        jobs.map((job) => job.id),
      );
      assert.equal((await store.countByStatus()).SUCCEEDED, 4);
    });

    // The drain that empties the queue is still marked as running for a few microtasks after its
    // last check: an outcome pushed in that gap must start a write of its own, not wait for the
    // next push (an idle instance would leave the job RUNNING while its lease keeps renewing).
    it('writes an outcome pushed at any moment around the end of a write without another push', async () => {
      const jobs = await claimed(24);
      for (let depth = 0; depth < jobs.length / 2; depth += 1) {
        const [first, late] = [jobs[2 * depth]!, jobs[2 * depth + 1]!];
        const w = recordingWriter();
        let pushed = false;
        const writer = new OutcomeWriter({
          store,
          logger: silentLogger,
          emit: () => undefined,
          onWritten: (leases) => {
            w.settled.push(...leases);
            if (pushed) return;
            pushed = true;
            void microtasks(depth).then(() => writer.push(completion(late)));
          },
        });
        writer.push(completion(first));
        await until(
          () => w.settled.some((lease) => lease.id === late.id),
          `the outcome pushed ${depth} microtasks after a write to be written`,
        );
      }
      assert.equal((await store.countByStatus()).SUCCEEDED, jobs.length);
    });

    it('keeps the outcomes of a failed write and retries them with backoff until the write works', async () => {
      const faults = await installFaults(db);
      const jobs = await claimed(3);
      await faults.arm('complete');
      const w = recordingWriter({ retryBaseMs: 20 });
      for (const job of jobs) w.writer.push(completion(job));
      // Wait for the errors, not the calls: a call still in flight when the fault is disarmed
      // could succeed and leave fewer failed writes than counted.
      const failures = () => w.events.filter((name) => name === 'outcome:error').length;
      await until(() => failures() >= 3, 'three failed writes');
      assert.ok(w.statements.length >= 3, 'each failed write was a statement of its own');
      assert.equal(w.writer.pending, 3, 'nothing dropped while the writes fail');
      assert.equal(w.settled.length, 0);
      assert.equal((await store.countByStatus()).SUCCEEDED ?? 0, 0);
      await faults.disarm('complete');
      await w.writer.flush();
      assert.equal((await store.countByStatus()).SUCCEEDED, 3);
      assert.deepEqual(
        w.settled.map((lease) => lease.id).sort((a, b) => a - b),
        jobs.map((job) => job.id),
      );
    });

    it('settles a fenced outcome without writing it, and reports the lease lost', async () => {
      const [job] = await claimed(1);
      await rawQuery(db, 'UPDATE nudge_jobs SET version = version + 1 WHERE id = ?', [job!.id]);
      const w = recordingWriter();
      w.writer.push(completion(job!));
      await w.writer.flush();
      assert.deepEqual(
        w.settled.map(({ id, version }) => ({ id, version })),
        [{ id: job!.id, version: job!.version }],
        'no longer held',
      );
      assert.ok(w.events.includes('job:lease-lost'));
      assert.ok(!w.events.includes('job:succeeded'));
      const [row] = await rawQuery<{ status: string }>(db, 'SELECT status FROM nudge_jobs WHERE id = ?', [
        job!.id,
      ]);
      assert.equal(row?.status, 'RUNNING');
    });

    it('settles an outcome the database refuses for its row alone, and writes the rest of the batch', async () => {
      const jobs = await claimed(3);
      const poison = await installPoisonRows(db);
      const bad = jobs[1]!;
      await poison.poison(bad.id);
      const w = recordingWriter();
      for (const job of jobs) w.writer.push(completion(job));
      await w.writer.flush();
      assert.equal(w.writer.pending, 0, 'nothing left to retry');
      assert.deepEqual(
        w.settled.map(({ id }) => id).sort((a, b) => a - b),
        jobs.map((j) => j.id),
        'every lease settled',
      );
      assert.equal(w.events.filter((e) => e === 'job:succeeded').length, 2);
      assert.ok(w.events.includes('job:outcome-refused'));
      assert.ok(!w.events.includes('job:lease-lost'), 'not reported as a lost lease');
      assert.ok(!w.events.includes('outcome:error'), 'not retried');
      const statuses = await rawQuery<{ id: number; status: string }>(
        db,
        'SELECT id, status FROM nudge_jobs ORDER BY id',
      );
      assert.deepEqual(
        statuses.map((r) => r.status),
        ['SUCCEEDED', 'RUNNING', 'SUCCEEDED'],
      );
    });

    it('flush(true) gives up after one failed write and keeps the outcome', async () => {
      const faults = await installFaults(db);
      const [job] = await claimed(1);
      await faults.arm('complete');
      const writer = new OutcomeWriter({
        store,
        logger: silentLogger,
        emit: () => undefined,
        onWritten: () => undefined,
        retryBaseMs: 60_000,
      });
      writer.push(completion(job!));
      await writer.flush(true);
      assert.equal(writer.pending, 1);
      await faults.disarm('complete');
      await writer.flush();
      assert.equal(writer.pending, 0);
      assert.equal((await store.countByStatus()).SUCCEEDED, 1);
    });
  });
}
