// What an attempt's handler does with `ctx.step`, `ctx.sleep` / `ctx.sleepUntil` and
// `ctx.waitForSignal`, under a lease a claim returned (held, or lost: its writes must change
// nothing), decided as the engine's thread decides, from what the claim shipped: a finished step
// returns its result, a slept sleep returns, a wait returns a signal already sent or null once
// timed out; otherwise it calls the store (recordStep, suspend) and checks what that did.
import type { SuspendWait } from '@nudge/store';
import { holds } from './attempt-commands.js';
import { canonicalJson, jsonOf } from './durable-state.js';
import { resolveWait, writeStep } from './durable-writes.js';
import { describeJob, type ModelLease } from './model-state.js';
import { storeCall, type World } from './model-world.js';
import { violation } from './violation.js';

/** Whether the attempt goes on after an action (`false`: it suspended, threw or lost its lease). */
export type GoesOn = boolean;

/**
 * Marks `name` used by `lease`'s attempt; `false` when it was already (the engine then throws
 * `STEP_NAME_REPEATED`, before any write).
 */
function use(world: World, lease: ModelLease, name: string): boolean {
  if (!lease.used.has(name)) {
    lease.used.add(name);
    return true;
  }
  world.model.trace.push(`  #${lease.id} v${lease.version} used ${name} already: the attempt throws`);
  return false;
}

/** Records step `name` (finished with a result, or failed) under `lease`, or the wait's timeout. */
async function recordWith(
  world: World,
  store: number,
  lease: ModelLease,
  name: string,
  outcome:
    | { status: 'SUCCEEDED'; resultJson: string | null }
    | { status: 'FAILED'; error: string }
    | { status: 'TIMED_OUT' },
  durationMs: number,
): Promise<boolean> {
  const { model } = world;
  const valid = holds(model.snapshot.get(lease.id), lease);
  const nowMs = model.nowMs;
  const type = outcome.status === 'TIMED_OUT' ? 'signal' : 'step';
  const result = await storeCall(
    world,
    store,
    `recordStep(#${lease.id} v${lease.version} ${name} ${JSON.stringify(outcome)})`,
    (s) =>
      s.recordStep(
        { id: lease.id, version: lease.version, name, type, attempt: lease.attempt, durationMs, ...outcome },
        new Date(nowMs),
      ),
    {
      expect: (r) => {
        if (!r.ok) violation(model, `recordStep threw ${r.error.code}: ${r.error.message}`);
        if (r.value !== valid)
          violation(
            model,
            `recordStep of #${lease.id} v${lease.version} returned ${r.value}, expected ${valid}`,
          );
        if (!valid) return;
        const old = model.durable.steps.get(lease.id)?.get(name);
        const resultJson = outcome.status === 'SUCCEEDED' ? outcome.resultJson : null;
        writeStep(model, lease.id, name, {
          type,
          status: outcome.status,
          attempt: lease.attempt,
          result: resultJson === null ? null : canonicalJson(JSON.parse(resultJson)),
          error: outcome.status === 'FAILED' ? outcome.error : null,
          startedMs: nowMs - durationMs,
          endedMs: nowMs,
          wakeMs: old?.wakeMs ?? null,
        });
      },
    },
  );
  return result.ok && result.value;
}

/** Suspends `lease`'s attempt to sleep or wait (`Store.suspend`), checking what it left. */
async function suspendWith(
  world: World,
  store: number,
  lease: ModelLease,
  name: string,
  wait: SuspendWait,
): Promise<void> {
  const { model } = world;
  const job = model.snapshot.get(lease.id);
  const valid = holds(job, lease);
  const nowMs = model.nowMs;
  const existing = model.durable.steps.get(lease.id)?.get(name);
  const sleeping = wait.type === 'sleep';
  const fresh = sleeping
    ? 'until' in wait
      ? wait.until.getTime()
      : nowMs + wait.delayMs
    : wait.timeoutMs === undefined
      ? null
      : nowMs + wait.timeoutMs;
  // A sleep or a wait already recorded keeps its wake-up time or deadline.
  const wakeMs = existing ? existing.wakeMs : fresh;
  const sent = !sleeping && (model.durable.signals.get(lease.id) ?? []).some((s) => s.name === name);
  const expected = sleeping
    ? (wakeMs ?? 0) > nowMs
      ? 'SCHEDULED'
      : 'PENDING'
    : sent
      ? 'PENDING'
      : 'WAITING';
  await storeCall(
    world,
    store,
    `suspend(#${lease.id} v${lease.version} ${name} ${JSON.stringify(wait)})`,
    (s) =>
      s.suspend(
        { id: lease.id, version: lease.version, name, attempt: lease.attempt, wait },
        new Date(nowMs),
      ),
    {
      expect: (r, after) => {
        if (!r.ok) violation(model, `suspend threw ${r.error.code}: ${r.error.message}`);
        if (!valid || job === undefined) {
          if (r.value !== undefined)
            violation(
              model,
              `suspend under lost lease #${lease.id} v${lease.version} answered ${JSON.stringify(r.value)}`,
            );
          return;
        }
        const now = after.get(lease.id);
        if (r.value?.status !== expected || now?.status !== expected)
          violation(
            model,
            `suspend of #${lease.id} answered ${JSON.stringify(r.value)}, job ${now?.status}; expected ${expected}`,
          );
        // Uncharged: the attempt counts no more, and the version moves on (fencing it out).
        if (
          now.attempts !== Math.max(job.attempts - 1, 0) ||
          now.version !== job.version + 1 ||
          now.leaseExpiresAt
        )
          violation(
            model,
            `suspended #${lease.id} is ${describeJob(now)} (lease ${now.leaseExpiresAt?.toISOString()}); expected attempt ${job.attempts} uncounted, version ${job.version + 1}, no lease`,
          );
        const runAtMs = expected === 'PENDING' && !sleeping ? nowMs : wakeMs;
        if (runAtMs !== null && Math.abs(now.runAt.getTime() - runAtMs) > 1)
          violation(
            model,
            `suspended #${lease.id} runs at ${now.runAt.toISOString()}, expected ${new Date(runAtMs).toISOString()}`,
          );
        if (!existing)
          writeStep(model, lease.id, name, {
            type: wait.type,
            status: sleeping ? 'SLEEPING' : 'WAITING',
            attempt: lease.attempt,
            result: null,
            error: null,
            startedMs: nowMs,
            endedMs: null,
            wakeMs,
          });
        if (expected === 'WAITING') model.durable.waits.set(lease.id, { name, deadlineMs: wakeMs });
      },
    },
  );
}

/** What a `ctx.step` does: `fails` throws; otherwise it returns `undefined` or a numbered JSON value. */
export interface StepSpec {
  readonly name: string;
  readonly fails: boolean;
  readonly undefinedResult: boolean;
  readonly durationMs: number;
}

/** `ctx.step(name, fn)`: returns the shipped result of a finished step, else records what fn did. */
export async function stepAction(
  world: World,
  store: number,
  lease: ModelLease,
  spec: StepSpec,
): Promise<GoesOn> {
  const { model } = world;
  const { name } = spec;
  if (!use(world, lease, name)) return false;
  const shipped = lease.shipped?.steps.get(name);
  if (shipped?.type === 'step' && shipped.status === 'SUCCEEDED') {
    model.trace.push(
      `  #${lease.id} v${lease.version}: step ${name} returns its stored result ${shipped.result}`,
    );
    return true;
  }
  model.durable.counter += 1;
  const n = model.durable.counter;
  const outcome = spec.fails
    ? { status: 'FAILED' as const, error: `step ${name} failed (${n})` }
    : { status: 'SUCCEEDED' as const, resultJson: spec.undefinedResult ? null : JSON.stringify(jsonOf(n)) };
  const written = await recordWith(world, store, lease, name, outcome, spec.durationMs);
  return written && !spec.fails;
}

/** `ctx.sleep(name, delayMs)`, or `ctx.sleepUntil(name, now + delayMs)` with `until`. */
export async function sleepAction(
  world: World,
  store: number,
  lease: ModelLease,
  { name, delayMs, until }: { name: string; delayMs: number; until: boolean },
): Promise<GoesOn> {
  if (!use(world, lease, name)) return false;
  const shipped = lease.shipped?.steps.get(name);
  if (shipped?.type === 'sleep' && shipped.remainingMs === 0) {
    world.model.trace.push(`  #${lease.id} v${lease.version}: ${name} slept already`);
    return true;
  }
  const wait: SuspendWait = until
    ? { type: 'sleep', until: new Date(world.model.nowMs + delayMs) }
    : { type: 'sleep', delayMs };
  await suspendWith(world, store, lease, name, wait);
  return false;
}

/**
 * `ctx.waitForSignal(name, { timeoutMs })`: null once timed out; the first signal of the name
 * when the claim shipped one; null, recorded, when the deadline had passed at the claim;
 * otherwise the attempt suspends to wait.
 */
export async function waitAction(
  world: World,
  store: number,
  lease: ModelLease,
  { name, timeoutMs }: { name: string; timeoutMs: number | undefined },
): Promise<GoesOn> {
  const { model } = world;
  if (!use(world, lease, name)) return false;
  const shipped = lease.shipped?.steps.get(name);
  const payload = lease.shipped?.signals.get(name);
  if (shipped?.type === 'signal' && shipped.status === 'TIMED_OUT') {
    resolveWait(model, lease.id, name, 'null', `timed out, v${lease.version}`);
    return true;
  }
  if (payload !== undefined) {
    resolveWait(model, lease.id, name, payload, `signal shipped to v${lease.version}`);
    return true;
  }
  if (shipped?.type === 'signal' && shipped.remainingMs === 0) {
    if (!(await recordWith(world, store, lease, name, { status: 'TIMED_OUT' }, 0))) return false;
    resolveWait(model, lease.id, name, 'null', `deadline passed at the claim of v${lease.version}`);
    return true;
  }
  const wait: SuspendWait = timeoutMs === undefined ? { type: 'signal' } : { type: 'signal', timeoutMs };
  await suspendWith(world, store, lease, name, wait);
  return false;
}
