import { afterEach, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import type { ClaimedJob, JobLease, Store } from '@nudge/store';
import { DIALECTS, createMigratedDatabase, openStore, type TestDatabase } from '@nudge/test-databases';
import { StepRecorder } from './step-recorder.js';
import type { StepWrittenMessage } from './threads/thread-messages.js';

const LEASE_MS = 300;

for (const dialect of DIALECTS) {
  describe(`StepRecorder: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    let job: ClaimedJob;
    beforeEach(async () => {
      db = await createMigratedDatabase(dialect);
      store = await openStore(db);
      await store.enqueue({ kind: 'k' });
      [job] = (await store.claim({
        workerId: 'w1',
        leaseMs: LEASE_MS,
        groups: [{ kinds: ['k'], limit: 1 }],
      })) as [ClaimedJob];
    });
    afterEach(async () => {
      await store.close();
      await db.drop();
    });

    /**
     * Records step `s` of the claimed attempt through a store whose answer is held up past a
     * heartbeat interval, running `meanwhile` first; @returns what happened, in order.
     */
    async function recordLate(meanwhile: () => Promise<void>): Promise<string[]> {
      const events: string[] = [];
      const recordStep = store.recordStep.bind(store);
      store.recordStep = async (input) => {
        const written = await recordStep(input);
        await meanwhile();
        await sleep(LEASE_MS / 3 + 50);
        return written;
      };
      const recorder = new StepRecorder({
        store,
        emit: () => undefined,
        leaseMs: LEASE_MS,
        onLost: (lease: JobLease) => events.push(`lost ${lease.id}:${lease.version}`),
      });
      const answer = await new Promise<StepWrittenMessage>((resolve) =>
        recorder.record(
          {
            type: 'step',
            request: 'r1',
            write: {
              id: job.id,
              version: job.version,
              name: 's',
              type: 'step',
              status: 'SUCCEEDED',
              attempt: job.attempt,
              resultJson: '1',
              durationMs: 1,
            },
          },
          resolve,
        ),
      );
      events.push(`written ${answer.written}${answer.error ? `: ${answer.error}` : ''}`);
      return events;
    }

    it('a late answer whose lease another instance took over aborts the attempt before answering', async () => {
      const events = await recordLate(async () => {
        const later = new Date(Date.now() + 10 * LEASE_MS);
        await store.sweepExpired({ retryDelayMs: () => 0, now: later });
        const [other] = await store.claim({
          workerId: 'w2',
          leaseMs: LEASE_MS,
          groups: [{ kinds: ['k'], limit: 1 }],
          now: later,
        });
        assert.ok(other !== undefined && other.version > job.version, 'another instance claimed the job');
      });
      assert.deepEqual(events, [`lost ${job.id}:${job.version}`, 'written true']);
      const { steps } = await store.jobSteps(job.id);
      assert.deepEqual(
        steps.map((step) => [step.name, step.status]),
        [['s', 'SUCCEEDED']],
        'the step the lost attempt finished stays recorded',
      );
    });

    it('a late answer whose lease still holds renews it and answers', async () => {
      const before = await store.getJob(job.id);
      const events = await recordLate(async () => undefined);
      assert.deepEqual(events, ['written true']);
      const after = await store.getJob(job.id);
      assert.ok(after?.leaseExpiresAt && before?.leaseExpiresAt);
      assert.ok(after.leaseExpiresAt > before.leaseExpiresAt, 'the confirmation renewed the lease');
    });
  });
}
