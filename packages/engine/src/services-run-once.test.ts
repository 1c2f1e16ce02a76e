import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger } from '@nudge/core';
import type { EnqueueInput, JobLease, Store } from '@nudge/store';
import {
  DIALECTS,
  createMigratedDatabase,
  openStore,
  rawQuery,
  type TestDatabase,
} from '@nudge/test-databases';
import { Claimer } from './claimer.js';
import { CronScheduler } from './cron-scheduler.js';
import { resolveSchedules } from './cron-schedule.js';
import { InstanceRegistry } from './instance-registry.js';
import { LeaseKeeper } from './lease-keeper.js';
import { NewJobsWaker } from './new-jobs-waker.js';
import { Promoter } from './promoter.js';
import { Pruner } from './pruner.js';
import { EVERY_QUEUE, resolveQueueServing } from './queue-serving.js';
import { Rescuer } from './rescuer.js';
import { SafetyPoll } from './safety-poll.js';
import type { EngineService } from './service.js';
import { UnhandledKindsFailer } from './unhandled-kinds.js';

// Each background service's runOnce, driven directly against a real database with its ports
// recorded: no service timer runs (none is started), so what a run does is what runOnce did.
const base = { logger: silentLogger, emit: () => undefined };
const LEASE_MS = 30_000;

for (const dialect of DIALECTS) {
  describe(`services' runOnce, without timers: ${dialect}`, () => {
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

    /** Claims the one due job of `kind` for `w1`. */
    async function claimOne(kind: string): Promise<JobLease> {
      const [job] = await store.claim({
        workerId: 'w1',
        leaseMs: LEASE_MS,
        groups: [{ kinds: [kind], limit: 1 }],
      });
      assert.ok(job, `a ${kind} job was claimed`);
      return { id: job.id, version: job.version };
    }

    /** Moves a timestamp column of job `id` back to its creation, then lets the clock pass it. */
    async function backdate(
      id: number,
      column: 'lease_expires_at' | 'run_at' | 'finished_at',
    ): Promise<void> {
      await rawQuery(db, `UPDATE nudge_jobs SET ${column} = created_at WHERE id = ?`, [id]);
      await sleep(20);
    }

    it('instance registry: registers the row it finds missing, with its kinds and slots', async () => {
      const registry: EngineService & InstanceRegistry = new InstanceRegistry({
        store,
        logger: silentLogger,
        leaseMs: LEASE_MS,
        instance: { id: 'w1', host: 'h', pid: 1, kinds: ['echo'], slots: { async: 4 } },
      });
      assert.equal(registry.registered, false);
      assert.deepEqual(await registry.runOnce(), { expired: 0 });
      const [row] = await store.listInstances({ liveWithinMs: 60_000 });
      assert.deepEqual([row?.id, row?.kinds, registry.registered], ['w1', ['echo'], true]);
    });

    it('lease keeper: renews held leases, and aborts one whose job was cancelled as cancelled', async () => {
      const job = await store.enqueue({ kind: 'echo' });
      const lease = await claimOne('echo');
      const lost: Array<[JobLease[], number[]]> = [];
      const keeper: EngineService = new LeaseKeeper({
        ...base,
        store,
        leaseMs: LEASE_MS,
        leases: () => [lease],
        onLost: (leases, cancelled) => {
          lost.push([[...leases], [...cancelled]]);
          return [
            {
              id: job.id,
              version: lease.version,
              kind: 'echo',
              queue: 'default',
              payloadJson: '{}',
              attempt: 1,
              waitMs: 0,
            },
          ];
        },
      });
      assert.deepEqual(await keeper.runOnce(), { renewed: 1, lost: 0 });
      await store.cancelJob(job.id);
      assert.deepEqual(await keeper.runOnce(), { renewed: 0, lost: 1 });
      assert.deepEqual(lost, [[[lease], [job.id]]]);
    });

    it('rescuer: puts a job whose lease expired back to PENDING and says so', async () => {
      const job = await store.enqueue({ kind: 'echo' });
      await claimOne('echo');
      await backdate(job.id, 'lease_expires_at');
      let requeued = 0;
      const rescuer: EngineService = new Rescuer({
        ...base,
        store,
        sweepIntervalMs: 1000,
        leaseMs: LEASE_MS,
        retryDelayMs: () => 0,
        onRequeued: () => void (requeued += 1),
        ownLeasesRenewed: () => true,
      });
      const result = (await rescuer.runOnce()) as { requeued: number };
      assert.equal(result.requeued, 1);
      assert.equal(requeued, 1);
      assert.equal((await store.getJob(job.id))?.status, 'PENDING');
    });

    it('promoter: makes a SCHEDULED job that came due PENDING, and reports the lease outlook', async () => {
      const job = await store.enqueue({ kind: 'echo', delayMs: 3_600_000 });
      assert.equal(job.status, 'SCHEDULED');
      await backdate(job.id, 'run_at');
      const calls: string[] = [];
      const promoter: EngineService = new Promoter({
        ...base,
        store,
        onPromoted: () => calls.push('promoted'),
        onLeaseExpiry: (inMs) => calls.push(`leases:${inMs}`),
      });
      const result = (await promoter.runOnce()) as { promoted: number; runnable: boolean };
      assert.deepEqual([result.promoted, result.runnable], [1, true]);
      assert.deepEqual(calls.sort(), ['leases:null', 'promoted']);
      assert.equal((await store.getJob(job.id))?.status, 'PENDING');
    });

    it('cron: enqueues a due tick once, through its enqueue port', async () => {
      const schedules = resolveSchedules([{ name: 'minutely', cron: '* * * * *', kind: 'echo' }], 'test');
      const enqueued: EnqueueInput[] = [];
      const cron: EngineService & CronScheduler = new CronScheduler({
        ...base,
        store,
        schedules,
        enqueue: (input) => (enqueued.push(input), store.enqueue(input)),
      });
      const now = await store.now();
      await cron.runOnce(now);
      const later = new Date(now.getTime() + 61_000);
      const result = await cron.runOnce(later);
      assert.equal(result.ticks.length, 1);
      await cron.runOnce(later);
      assert.deepEqual(
        enqueued.map((input) => input.kind),
        ['echo'],
      );
    });

    it('pruner: deletes a finished job past its retention, and keeps a younger one', async () => {
      const old = await store.enqueue({ kind: 'echo' });
      await store.complete([{ ...(await claimOne('echo')), resultJson: null }]);
      await backdate(old.id, 'finished_at');
      const young = await store.enqueue({ kind: 'echo' });
      await store.complete([{ ...(await claimOne('echo')), resultJson: null }]);
      const pruner: EngineService = new Pruner({
        ...base,
        store,
        pruneIntervalMs: 0,
        policy: { byStatus: { SUCCEEDED: 10, FAILED: null, CANCELLED: null }, byKind: new Map() },
      });
      await sleep(5);
      const result = (await pruner.runOnce()) as { deleted: number };
      assert.ok(result.deleted >= 1);
      assert.equal(await store.getJob(old.id), undefined);
      assert.ok(young.id > old.id);
    });

    it('unhandled kinds: fails a due job whose kind no live instance handles, past the grace', async () => {
      await store.registerInstance({ id: 'w1', host: 'h', pid: 1, kinds: ['echo'] });
      const ghost = await store.enqueue({ kind: 'ghost' });
      const echo = await store.enqueue({ kind: 'echo' });
      await backdate(ghost.id, 'run_at');
      await backdate(echo.id, 'run_at');
      let registered = false;
      const failer: EngineService = new UnhandledKindsFailer({
        ...base,
        store,
        graceMs: 5,
        instanceTtlMs: 60_000,
        registered: () => registered,
      });
      assert.deepEqual(await failer.runOnce(), { failed: 0, kinds: [] }, 'nothing before registering');
      registered = true;
      assert.deepEqual(await failer.runOnce(), { failed: 1, kinds: ['ghost'] });
      assert.equal((await store.getJob(ghost.id))?.status, 'FAILED');
      assert.equal((await store.getJob(echo.id))?.status, 'PENDING');
    });

    it('claimer: one pass claims as many due jobs as it holds free slots, and signs work', async () => {
      await store.enqueueMany([{ kind: 'echo' }, { kind: 'echo' }, { kind: 'echo' }]);
      let free = 0;
      let signs = 0;
      const started: number[] = [];
      const claimer: EngineService & Claimer = new Claimer({
        ...base,
        store,
        workerId: 'w1',
        leaseMs: LEASE_MS,
        claimCooldownMs: 0,
        maxClaimBatch: 100,
        kinds: new Map([['async', ['echo']]]),
        free: () => free,
        reserve: (_execution, count) => {
          const held = Math.min(free, count);
          free -= held;
          return held;
        },
        unreserve: (_execution, count) => void (free += count),
        serving: resolveQueueServing(EVERY_QUEUE),
        reserveQueue: (_queue, _cap, count) => count,
        unreserveQueue: () => undefined,
        start: (jobs) => void started.push(...jobs.map((job) => job.id)),
        classOf: () => 'async',
        onWorkSign: () => void (signs += 1),
      });
      // Started with no free slot, it asks for nothing on its own.
      claimer.start();
      free = 2;
      assert.deepEqual(await claimer.runOnce(), { claimed: 2, limit: 2 });
      assert.deepEqual([started.length, signs, free], [2, 1, 0]);
      await claimer.stop();
      assert.deepEqual(await claimer.runOnce(), { claimed: 0, limit: 0 }, 'a stopped claimer claims nothing');
    });

    it('new-jobs waker and safety poll: one run requests a claim, one run polls', async () => {
      let claims = 0;
      const waker: EngineService = new NewJobsWaker({
        store,
        listen: true,
        emit: () => undefined,
        requestClaim: () => void (claims += 1),
        onListening: () => undefined,
      });
      assert.equal(await waker.runOnce(), false, 'not started: no listener open');
      assert.equal(claims, 1);
      let polls = 0;
      const poll: EngineService = new SafetyPoll({
        shortMs: 1000,
        idleMaxMs: 60_000,
        poll: () => Promise.resolve(void (polls += 1)),
        onError: (error) => assert.fail(String(error)),
      });
      await poll.runOnce();
      assert.equal(polls, 1);
    });
  });
}
