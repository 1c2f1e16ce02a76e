// A job WAITING for a signal waits for no dependency, on both dialects: when one of its
// dependencies finishes again (onDependencyFailure 'run': the job ran after that dependency failed,
// which was then retried), the dependency release leaves the wait alone, and the signal still
// reaches the job. (PostgreSQL's release found such a job through its depends_on list and moved it
// to SCHEDULED at its wait's deadline, 'infinity' for a wait without one: it never ran again.)
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClaimedJob, ClaimedSteps, Store } from '@nudge/store';
import { createMigratedDatabase, DIALECTS, openStore, type TestDatabase } from '../helpers/index.js';

for (const dialect of DIALECTS) {
  describe(`store: a signal wait and its dependencies: ${dialect}`, () => {
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

    async function claimOne(kind: string): Promise<ClaimedJob> {
      const [job] = await store.claim({
        workerId: 'w',
        leaseMs: 60_000,
        groups: [{ kinds: [kind], limit: 1 }],
      });
      assert.ok(job, `a job of kind ${kind} was claimed`);
      return job;
    }

    for (const timeoutMs of [undefined, 600_000]) {
      it(`a dependency finishing again does not end a wait (${timeoutMs === undefined ? 'no deadline' : 'a deadline'})`, async () => {
        const dependency = await store.enqueue({ kind: 'dep' });
        const job = await store.enqueue({
          kind: 'job',
          dependsOn: [dependency.id],
          onDependencyFailure: 'run',
        });
        const failed = await claimOne('dep');
        await store.fail([
          { id: failed.id, version: failed.version, error: 'boom', retryDelayMs: 0, permanent: true },
        ]);
        const running = await claimOne('job');
        const wait =
          timeoutMs === undefined ? { type: 'signal' as const } : { type: 'signal' as const, timeoutMs };
        const suspended = await store.suspend({
          id: job.id,
          version: running.version,
          name: 'approve',
          attempt: 1,
          wait,
        });
        assert.equal(suspended?.status, 'WAITING');

        assert.equal((await store.retryJob(dependency.id)).outcome, 'changed');
        const again = await claimOne('dep');
        assert.equal(
          (await store.complete([{ id: again.id, version: again.version, resultJson: '1' }])).length,
          1,
        );
        assert.equal(
          (await store.getJob(job.id))?.status,
          'WAITING',
          'the dependency release left the wait alone',
        );

        await store.sendSignal({ jobId: job.id, name: 'approve', payloadJson: '{"ok":true}' });
        assert.equal((await store.getJob(job.id))?.status, 'PENDING', 'the signal reached the job');
        const resumed = await claimOne('job');
        assert.deepEqual((JSON.parse(resumed.stepsJson ?? '{}') as ClaimedSteps).signals, [
          ['approve', { ok: true }],
        ]);
      });
    }
  });
}
