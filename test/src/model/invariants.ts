// What must hold of the jobs after every store call (status moves, dependencies), and of every
// claim (flow control, dependencies, paused queues), checked against the reference model.
import { canTransition, INITIAL_STATUSES, type Job } from '@nudge/core';
import type { ClaimedJob } from '@nudge/store';
import { describeJob, isFinal, lastKnown, queueOf, startsInWindow, type Model } from './model-state.js';
import type { CallOptions } from './model-world.js';
import { checkShipped } from './durable-invariants.js';
import { violation } from './violation.js';

/**
 * Checks the jobs read after a call (`after`) against those read before it, and records in the
 * model what the call did (new ids, deleted jobs, releases, retries):
 * - every status change is one `JOB_TRANSITIONS` allows, and a new job starts in an initial status;
 * - a job vanishes only through retention, and only once finished; none comes back;
 * - a job that stays `RUNNING` keeps its version (one call cannot end an attempt and start another);
 * - the dependency invariants of {@link checkDependencies}.
 * A job that left `WAITING` for a signal (one of `signalWaits`) was not released by dependencies.
 */
export function checkAfterCall(
  model: Model,
  before: ReadonlyMap<number, Job>,
  after: ReadonlyMap<number, Job>,
  label: string,
  options: CallOptions,
  signalWaits: ReadonlyMap<number, unknown>,
): void {
  for (const [id, job] of after) {
    const old = before.get(id);
    if (!old) {
      if (model.pruned.has(id)) violation(model, `${label}: job #${id}, deleted by retention, is back`);
      if (model.ids.includes(id)) violation(model, `${label}: job #${id} vanished and is back`);
      if (!INITIAL_STATUSES.includes(job.status))
        violation(model, `${label}: new job ${describeJob(job)} starts ${job.status}`);
      model.ids.push(id);
      if (job.dependsOn.length > 0 && (job.status === 'PENDING' || job.status === 'SCHEDULED'))
        model.releasedAt.set(id, model.step);
      continue;
    }
    if (old.status !== job.status) {
      if (!canTransition(old.status, job.status))
        violation(
          model,
          `${label}: job #${id} moved ${old.status} -> ${job.status}, which JOB_TRANSITIONS forbids`,
        );
      if (old.status === 'WAITING' && job.status !== 'CANCELLED' && !signalWaits.has(id))
        model.releasedAt.set(id, model.step);
      // A retry that finds every dependency finished releases the job at once.
      if (isFinal(old.status) && (job.status === 'PENDING' || job.status === 'SCHEDULED'))
        model.releasedAt.set(id, model.step);
      // A retry: PENDING again, or WAITING for its own dependencies.
      if (isFinal(old.status) && (job.status === 'PENDING' || job.status === 'WAITING'))
        model.retriedAt.set(id, model.step);
    } else if (job.status === 'RUNNING' && job.version !== old.version) {
      violation(
        model,
        `${label}: job #${id} stayed RUNNING but its version went ${old.version} -> ${job.version}`,
      );
    }
  }
  for (const [id, old] of before) {
    if (after.has(id)) continue;
    if (!options.prunes) violation(model, `${label}: job ${describeJob(old)} vanished`);
    if (!isFinal(old.status))
      violation(model, `${label}: retention deleted unfinished job ${describeJob(old)}`);
    model.pruned.set(id, old);
  }
  model.ids.sort((x, y) => x - y);
  checkDependencies(model, after, label);
}

/**
 * No job waits for dependencies that have all finished; a job that is cancelled when a
 * dependency fails (`onDependencyFailure: 'cancel'`) does not wait while one has failed or was
 * cancelled. A dependency deleted by retention counts as it was when deleted. A job `WAITING`
 * for a signal waits for no dependency.
 */
export function checkDependencies(model: Model, jobs: ReadonlyMap<number, Job>, label: string): void {
  for (const job of jobs.values()) {
    if (job.status !== 'WAITING' || model.durable.waits.has(job.id)) continue;
    const deps = job.dependsOn.map((id) => jobs.get(id) ?? model.pruned.get(id));
    if (deps.every((dep) => dep === undefined || isFinal(dep.status)))
      violation(model, `${label}: ${describeJob(job)} is WAITING though its dependencies all finished`);
    const failed = deps.find((dep) => dep && (dep.status === 'FAILED' || dep.status === 'CANCELLED'));
    if (failed && job.onDependencyFailure !== 'run')
      violation(
        model,
        `${label}: ${describeJob(job)} is WAITING though dependency #${failed.id} ended ${failed.status} (it should be CANCELLED)`,
      );
  }
}

/** Why `job`, just claimed, should not have run yet (its dependencies), or `undefined`. */
function dependencyBlock(model: Model, job: Job): string | undefined {
  for (const id of job.dependsOn) {
    const dep = lastKnown(model, id);
    if (!dep) return `dependency #${id} is unknown`;
    // A dependency retried after the job was released does not take the release back.
    const released = model.releasedAt.get(job.id);
    const retried = model.retriedAt.get(id);
    if (released !== undefined && retried !== undefined && retried > released) continue;
    if (job.onDependencyFailure !== 'run') {
      if (dep.status !== 'SUCCEEDED') return `dependency #${id} is ${dep.status}, not SUCCEEDED`;
      continue;
    }
    if (isFinal(dep.status)) continue;
    return `dependency #${id} is ${dep.status}, not finished`;
  }
  return undefined;
}

/** What a claim asked for. */
export interface ClaimAsked {
  readonly workerId: string;
  readonly kinds: readonly string[];
  readonly limit: number;
  readonly nowMs: number;
}

/**
 * Checks a claim's jobs against the jobs before (`before`) and after it (the model's snapshot),
 * and records their starts in the model:
 * - each was due `PENDING` of a claimed kind in a queue not paused, and is now `RUNNING` under
 *   the returned version for this worker; no more than the limit;
 * - per queue, `RUNNING` ≤ `concurrency`, per concurrency key ≤ `keyConcurrency`, and the starts
 *   in the rate window ending now ≤ the rate's limit, where the claim started jobs;
 * - each job's dependencies succeeded (`'run'`: finished);
 * - when it returned fewer than the limit, no due job of a queue without limits was left behind.
 */
export function checkClaim(
  model: Model,
  asked: ClaimAsked,
  claimed: readonly ClaimedJob[],
  before: ReadonlyMap<number, Job>,
): void {
  const label = `claim by ${asked.workerId}`;
  if (claimed.length > asked.limit)
    violation(model, `${label} returned ${claimed.length} jobs, limit ${asked.limit}`);
  const after = model.snapshot;
  for (const c of claimed) {
    const old = before.get(c.id);
    const now = after.get(c.id);
    if (!old || !now) violation(model, `${label} returned unknown job #${c.id}`);
    if (old.status !== 'PENDING') violation(model, `${label} took ${describeJob(old)}, not PENDING`);
    if (old.runAt.getTime() > asked.nowMs)
      violation(
        model,
        `${label} took #${c.id} due at ${old.runAt.toISOString()}, before now ${new Date(asked.nowMs).toISOString()}`,
      );
    if (!asked.kinds.includes(old.kind)) violation(model, `${label} took #${c.id} of kind ${old.kind}`);
    if (queueOf(model, old.queue).paused)
      violation(model, `${label} took #${c.id} of paused queue ${old.queue}`);
    if (now.status !== 'RUNNING' || now.version !== c.version || now.claimedBy !== asked.workerId)
      violation(
        model,
        `${label} returned #${c.id} v${c.version}, now ${describeJob(now)} claimed by ${now.claimedBy}`,
      );
    const blocked = dependencyBlock(model, now);
    if (blocked) violation(model, `${label} took ${describeJob(now)} though ${blocked}`);
    if (c.attempt !== now.attempts)
      violation(model, `${label} returned #${c.id} as attempt ${c.attempt}, the row counts ${now.attempts}`);
    const shipped = checkShipped(model, c, asked.nowMs, label);
    model.leases.push({
      id: c.id,
      version: c.version,
      workerId: asked.workerId,
      attempt: c.attempt,
      shipped,
      used: new Set(),
    });
  }
  const running = [...after.values()].filter((job) => job.status === 'RUNNING');
  for (const name of new Set(claimed.map((c) => c.queue))) {
    const queue = queueOf(model, name);
    const started = claimed.filter((c) => c.queue === name);
    for (let i = 0; i < started.length; i += 1) queue.starts.push({ atMs: asked.nowMs, step: model.step });
    const inQueue = running.filter((job) => job.queue === name);
    if (queue.concurrency !== null && inQueue.length > queue.concurrency)
      violation(
        model,
        `${label}: queue ${name} runs ${inQueue.length} jobs, concurrency ${queue.concurrency}`,
      );
    if (queue.keyConcurrency !== null) {
      for (const key of new Set(started.map((c) => after.get(c.id)?.concurrencyKey ?? null))) {
        if (key === null) continue;
        const withKey = inQueue.filter((job) => job.concurrencyKey === key).length;
        if (withKey > queue.keyConcurrency)
          violation(
            model,
            `${label}: queue ${name} runs ${withKey} jobs of key ${key}, keyConcurrency ${queue.keyConcurrency}`,
          );
      }
    }
    if (queue.rate) {
      const count = startsInWindow(queue, queue.rate, asked.nowMs);
      if (count > queue.rate.limit)
        violation(
          model,
          `${label}: queue ${name} started ${count} jobs in the ${queue.rate.intervalMs} ms ending now, rate limit ${queue.rate.limit}`,
        );
    }
  }
  if (claimed.length < asked.limit) checkNoneLeftBehind(model, asked, claimed, label);
  checkClaimOrder(model, asked, claimed, label);
}

/** Whether `job` is one a claim of `asked` may take from a queue without limits. */
function freelyClaimable(model: Model, asked: ClaimAsked, job: Job): boolean {
  const queue = queueOf(model, job.queue);
  return (
    job.status === 'PENDING' &&
    job.runAt.getTime() <= asked.nowMs - 1 &&
    asked.kinds.includes(job.kind) &&
    !queue.paused &&
    queue.concurrency === null &&
    queue.keyConcurrency === null &&
    queue.rate === null &&
    dependencyBlock(model, job) === undefined
  );
}

/**
 * Claims go in `(priority, run_at, id)` order: no job a claim left in a queue without limits comes
 * before one it took from such a queue (run times 1 ms apart or more, as PostgreSQL's carry
 * microseconds).
 */
function checkClaimOrder(
  model: Model,
  asked: ClaimAsked,
  claimed: readonly ClaimedJob[],
  label: string,
): void {
  const taken = claimed
    .map((c) => model.snapshot.get(c.id))
    .filter((job): job is Job => job !== undefined && queueOf(model, job.queue).concurrency === null)
    .filter(
      (job) => queueOf(model, job.queue).keyConcurrency === null && queueOf(model, job.queue).rate === null,
    );
  for (const left of model.snapshot.values()) {
    if (!freelyClaimable(model, asked, left)) continue;
    const passed = taken.find(
      (job) =>
        left.priority < job.priority ||
        (left.priority === job.priority && left.runAt.getTime() < job.runAt.getTime() - 1),
    );
    if (passed)
      violation(
        model,
        `${label} took ${describeJob(passed)} (run at ${passed.runAt.toISOString()}) before ${describeJob(left)} (run at ${left.runAt.toISOString()})`,
      );
  }
}

/** After a claim short of its limit: no due job it could take sits in a queue without limits. */
function checkNoneLeftBehind(
  model: Model,
  asked: ClaimAsked,
  claimed: readonly ClaimedJob[],
  label: string,
): void {
  for (const job of model.snapshot.values()) {
    if (!freelyClaimable(model, asked, job)) continue;
    violation(
      model,
      `${label} returned ${claimed.length} of ${asked.limit} jobs but left due ${describeJob(job)} (run at ${job.runAt.toISOString()}) of an unlimited queue`,
    );
  }
}

/**
 * Whether `job`'s dependencies allow it to run now: all `SUCCEEDED`, or with
 * `onDependencyFailure: 'run'` all finished. A job without dependencies may always run.
 */
export function dependenciesAllow(model: Model, job: Job): boolean {
  return job.dependsOn.every((id) => {
    const dep = lastKnown(model, id);
    if (!dep) return false;
    return job.onDependencyFailure === 'run' ? isFinal(dep.status) : dep.status === 'SUCCEEDED';
  });
}
