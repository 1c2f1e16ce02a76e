// The model test's attempt commands: claim by one of the instances, succeed or fail an attempt it
// holds (or held: a stale lease must change nothing), let a lease expire, sweep, promote.
import fc from 'fast-check';
import type { Job } from '@nudge/core';
import type { ClaimedJob } from '@nudge/store';
import { timeOutWaits } from './durable-writes.js';
import { checkClaim } from './invariants.js';
import { modelCommand, type ModelCommand } from './model-command.js';
import {
  advanceTo,
  describeJob,
  MODEL_KINDS,
  MODEL_LEASE_MS,
  nowOf,
  pickOf,
  type ModelLease,
} from './model-state.js';
import { storeCall, workerOf, type World } from './model-world.js';
import { violation } from './violation.js';

/** Claims up to `limit` jobs of `kinds` with instance `store` at the virtual now. */
export async function claimWith(
  world: World,
  store: number,
  kinds: readonly string[],
  limit: number,
): Promise<readonly ClaimedJob[]> {
  const { model } = world;
  const nowMs = model.nowMs;
  const workerId = workerOf(store);
  const result = await storeCall(world, store, `claim(${kinds.join('')}, ${limit})`, (s) =>
    s.claim({ workerId, leaseMs: MODEL_LEASE_MS, groups: [{ kinds, limit }], now: new Date(nowMs) }),
  );
  if (!result.ok) violation(model, `claim threw ${result.error.code}: ${result.error.message}`);
  checkClaim(model, { workerId, kinds, limit, nowMs }, result.value, result.before);
  return result.value;
}

/** Claims with one of the three instances. */
export const claimCommand: fc.Arbitrary<ModelCommand> = fc
  .record({ store: fc.nat({ max: 2 }), limit: fc.integer({ min: 1, max: 4 }), onlyA: fc.boolean() })
  .map(({ store, limit, onlyA }) => {
    const kinds = onlyA ? ['a'] : [...MODEL_KINDS];
    return modelCommand(`claim(${workerOf(store)}, ${kinds.join('')}, ${limit})`, async (_model, world) => {
      await claimWith(world, store, kinds, limit);
    });
  });

/** Whether `lease` still holds its job (so an outcome under it is recorded). */
export const holds = (job: Job | undefined, lease: Pick<ModelLease, 'version'>): job is Job =>
  job !== undefined && job.status === 'RUNNING' && job.version === lease.version;

/** Completes an attempt a claim returned, possibly one whose lease is lost. */
export async function completeWith(
  world: World,
  store: number,
  lease: Pick<ModelLease, 'id' | 'version'>,
): Promise<void> {
  const { model } = world;
  const valid = holds(model.snapshot.get(lease.id), lease);
  const result = await storeCall(world, store, `complete(#${lease.id} v${lease.version})`, (s) =>
    s.complete([{ id: lease.id, version: lease.version, resultJson: '1' }], nowOf(model)),
  );
  if (!result.ok) violation(model, `complete threw ${result.error.code}: ${result.error.message}`);
  if (result.value.length !== (valid ? 1 : 0))
    violation(
      model,
      `complete of #${lease.id} v${lease.version} recorded ${result.value.length}, expected ${valid ? 1 : 0}`,
    );
  const job = model.snapshot.get(lease.id);
  if (valid && job?.status !== 'SUCCEEDED') violation(model, `completed #${lease.id} is ${job?.status}`);
}

export const completeCommand: fc.Arbitrary<ModelCommand> = fc
  .record({ store: fc.nat({ max: 2 }), pick: fc.nat() })
  .map(({ store, pick }) =>
    modelCommand(
      `complete(lease pick ${pick}, via ${workerOf(store)})`,
      async (model, world) => {
        const lease = pickOf(model.leases, pick);
        if (lease) await completeWith(world, store, lease);
      },
      (model) => model.leases.length > 0,
    ),
  );

export const failCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    pick: fc.nat(),
    retryDelayMs: fc.constantFrom(0, 5_000),
    permanent: fc.constantFrom(false, false, false, true),
  })
  .map(({ store, pick, retryDelayMs, permanent }) =>
    modelCommand(
      `fail(lease pick ${pick}, retry in ${retryDelayMs} ms${permanent ? ', permanent' : ''}, via ${workerOf(store)})`,
      async (model, world) => {
        const lease = pickOf(model.leases, pick);
        if (!lease) return;
        const job = model.snapshot.get(lease.id);
        // Known fault: a debounced job's retry waiting SCHEDULED beside another of its key.
        const delay = model.avoid.has('debounce-retry') && job?.debounceKey ? 0 : retryDelayMs;
        const valid = holds(job, lease);
        const result = await storeCall(
          world,
          store,
          `fail(#${lease.id} v${lease.version}, ${delay} ms${permanent ? ', permanent' : ''})`,
          (s) =>
            s.fail(
              [{ id: lease.id, version: lease.version, error: 'model', retryDelayMs: delay, permanent }],
              nowOf(model),
            ),
        );
        if (!result.ok) violation(model, `fail threw ${result.error.code}: ${result.error.message}`);
        if (!valid) {
          if (result.value.length > 0)
            violation(model, `fail under lost lease #${lease.id} v${lease.version} was recorded`);
          return;
        }
        const expected =
          permanent || job.attempts >= job.maxAttempts ? 'FAILED' : delay > 0 ? 'SCHEDULED' : 'PENDING';
        const [outcome] = result.value;
        const now = model.snapshot.get(lease.id);
        if (result.value.length !== 1 || outcome?.status !== expected || now?.status !== expected)
          violation(
            model,
            `fail of #${lease.id} gave ${JSON.stringify(result.value)}, job ${now?.status}; expected ${expected}`,
          );
      },
      (model) => model.leases.length > 0,
    ),
  );

/** Moves the clock past the lease of a running job (picked), so a sweep recovers it. */
export const expireLeaseCommand: fc.Arbitrary<ModelCommand> = fc.nat().map((pick) =>
  modelCommand(`expire lease (running pick ${pick})`, async (model) => {
    const running = [...model.snapshot.values()].filter(
      (job) => job.status === 'RUNNING' && job.leaseExpiresAt,
    );
    const job = pickOf(running, pick);
    if (job?.leaseExpiresAt) advanceTo(model, job.leaseExpiresAt.getTime() + 1);
  }),
);

/** Recovers expired leases through `store`, checking what it recovered against the jobs before. */
export async function sweepWith(world: World, store: number, retryDelayMs: number): Promise<void> {
  const { model } = world;
  const nowMs = model.nowMs;
  const result = await storeCall(world, store, `sweepExpired(retry in ${retryDelayMs} ms)`, (s) =>
    s.sweepExpired({ retryDelayMs: () => retryDelayMs, now: new Date(nowMs) }),
  );
  if (!result.ok) violation(model, `sweepExpired threw ${result.error.code}: ${result.error.message}`);
  const running = [...result.before.values()].filter((job) => job.status === 'RUNNING' && job.leaseExpiresAt);
  const expired = running.filter((job) => (job.leaseExpiresAt?.getTime() ?? 0) < nowMs);
  const { requeued, failed } = result.value;
  if (requeued + failed !== expired.length)
    violation(model, `sweep recovered ${requeued + failed} jobs, ${expired.length} leases had expired`);
  for (const job of expired) {
    const now = model.snapshot.get(job.id);
    const expected = job.attempts >= job.maxAttempts ? 'FAILED' : retryDelayMs > 0 ? 'SCHEDULED' : 'PENDING';
    if (now?.status !== expected)
      violation(model, `swept #${job.id} is ${now?.status}, expected ${expected}`);
  }
}

export const sweepCommand: fc.Arbitrary<ModelCommand> = fc
  .record({ store: fc.nat({ max: 2 }), retryDelayMs: fc.constantFrom(0, 2_000) })
  .map(({ store, retryDelayMs }) =>
    modelCommand(`sweep(retry in ${retryDelayMs} ms, via ${workerOf(store)})`, (model, world) =>
      // Known fault: a requeue to SCHEDULED beside a debounced job of the same key.
      sweepWith(world, store, model.avoid.has('debounce-retry') ? 0 : retryDelayMs),
    ),
  );

/**
 * Promotes due scheduled jobs through `store`, checking which it promoted, and that it ended
 * every signal wait whose deadline had passed (each exactly once: `timedOut` counts them).
 */
export async function promoteWith(world: World, store: number): Promise<void> {
  const { model } = world;
  const nowMs = model.nowMs;
  const result = await storeCall(
    world,
    store,
    'promoteScheduled()',
    (s) => s.promoteScheduled({ now: new Date(nowMs) }),
    {
      expect: (r, after) => {
        if (!r.ok) violation(model, `promoteScheduled threw ${r.error.code}: ${r.error.message}`);
        const timedOut = timeOutWaits(model, nowMs, after);
        if (r.ok && (r.value.timedOut ?? 0) !== timedOut)
          violation(model, `promoteScheduled timed out ${r.value.timedOut ?? 0} waits, ${timedOut} were due`);
      },
    },
  );
  if (!result.ok) violation(model, `promoteScheduled threw ${result.error.code}: ${result.error.message}`);
  const scheduled = [...result.before.values()].filter((job) => job.status === 'SCHEDULED');
  // Times the database wrote carry microseconds on PostgreSQL: allow 1 ms either side.
  const surely = scheduled.filter((job) => job.runAt.getTime() < nowMs - 1);
  const maybe = scheduled.filter((job) => job.runAt.getTime() <= nowMs + 1);
  const { promoted } = result.value;
  if (promoted < surely.length || promoted > maybe.length)
    violation(model, `promoted ${promoted} jobs; ${surely.length} to ${maybe.length} were due`);
  for (const job of surely) {
    if (model.snapshot.get(job.id)?.status !== 'PENDING') violation(model, `due #${job.id} was not promoted`);
  }
}

export const promoteCommand: fc.Arbitrary<ModelCommand> = fc
  .nat({ max: 2 })
  .map((store) =>
    modelCommand(`promote(via ${workerOf(store)})`, (_model, world) => promoteWith(world, store)),
  );

/** Gives an attempt back (shutdown) or extends its lease (heartbeat), under a lease a claim returned. */
export const releaseOrBeatCommand: fc.Arbitrary<ModelCommand> = fc
  .record({ store: fc.nat({ max: 2 }), pick: fc.nat(), release: fc.boolean() })
  .map(({ store, pick, release }) =>
    modelCommand(
      `${release ? 'release' : 'heartbeat'}(lease pick ${pick}, via ${workerOf(store)})`,
      async (model, world) => {
        const lease = pickOf(model.leases, pick);
        if (!lease) return;
        const job = model.snapshot.get(lease.id);
        const valid = holds(job, lease);
        const nowMs = model.nowMs;
        const leases = [{ id: lease.id, version: lease.version }];
        const result = await storeCall(
          world,
          store,
          `${release ? 'release' : 'heartbeat'}(#${lease.id} v${lease.version})`,
          (s) =>
            release
              ? s.release(leases, new Date(nowMs))
              : s.heartbeat(leases, MODEL_LEASE_MS, new Date(nowMs)),
        );
        if (!result.ok)
          violation(
            model,
            `${release ? 'release' : 'heartbeat'} threw ${result.error.code}: ${result.error.message}`,
          );
        if (result.value.length !== (valid ? 1 : 0))
          violation(
            model,
            `${release ? 'release' : 'heartbeat'} of #${lease.id} v${lease.version} took ${result.value.length}, expected ${valid ? 1 : 0}`,
          );
        const now = model.snapshot.get(lease.id);
        if (!valid || !now) return;
        if (release && (now.status !== 'PENDING' || now.attempts !== Math.max(job.attempts - 1, 0)))
          violation(
            model,
            `released #${lease.id} is ${describeJob(now)}; expected PENDING, attempt not counted`,
          );
        if (!release && now.leaseExpiresAt?.getTime() !== nowMs + MODEL_LEASE_MS)
          violation(
            model,
            `heartbeat of #${lease.id} left its lease at ${now.leaseExpiresAt?.toISOString()}`,
          );
      },
      (model) => model.leases.length > 0,
    ),
  );
