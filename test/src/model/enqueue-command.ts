// The model test's enqueue: one job (`store.enqueue`) or a batch (`enqueueMany`) with any mix of
// dependencies (existing jobs, earlier jobs of the batch), dedupe options, concurrency key, queue,
// delay, priority and attempts; and what must hold of the jobs it returns.
import fc from 'fast-check';
import type { DependencyRef, Job, JsonValue } from '@nudge/core';
import type { EnqueueInput, EnqueuedJob } from '@nudge/store';
import { modelCommand, type ModelCommand } from './model-command.js';
import { isFinal, lastKnown, MODEL_KINDS, MODEL_QUEUES, pickOf, type Model } from './model-state.js';
import { storeCall, type World } from './model-world.js';
import { violation } from './violation.js';

/** A dependency as generated: an existing job (a pick) or an earlier job of the batch. */
type DepSpec = { readonly pick: number } | { readonly index: number };

/** One job as generated; picks resolve when the command runs. */
export interface JobSpec {
  readonly kind: string;
  readonly queue: string;
  readonly options: Omit<EnqueueInput, 'kind' | 'queue' | 'dependsOn' | 'runAt'>;
  /** `runAt` from the virtual now when the command runs, in ms. */
  readonly runAtInMs?: number;
  readonly deps: readonly DepSpec[];
}

const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined });

const dedupeArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.record({ idempotencyKey: fc.constantFrom('i1', 'i2') }) },
  {
    weight: 1,
    arbitrary: fc.record({
      throttle: fc.record({ key: fc.constantFrom('t1', 't2'), windowMs: fc.constantFrom(1, 3_600_000) }),
    }),
  },
  // One debounce key, drawn twice as often: two debounced jobs of a kind meet often enough to
  // wait beside each other.
  {
    weight: 2,
    arbitrary: fc.record({
      debounce: fc.record({ key: fc.constant('d1'), delayMs: fc.constantFrom(1_000, 600_000) }),
    }),
  },
);

export const jobSpecArb: fc.Arbitrary<JobSpec> = fc
  .record({
    kind: fc.constantFrom(...MODEL_KINDS),
    queue: fc.constantFrom(...MODEL_QUEUES),
    priority: optional(fc.constantFrom(-1, 0, 1)),
    maxAttempts: optional(fc.integer({ min: 1, max: 3 })),
    payload: optional(fc.constantFrom<JsonValue>({ n: 1 }, 'text', [1, 2], null)),
    // 20 minutes outlasts the clock's lead: such a job waits SCHEDULED until the clock moves.
    start: fc.oneof(
      fc.constant({}),
      fc.record({ delayMs: fc.constantFrom(0, 1_000, 1_200_000) }),
      fc.record({ runAtInMs: fc.constantFrom(-60_000, 0, 1_200_000) }),
    ),
    concurrencyKey: optional(fc.constantFrom('k1', 'k2')),
    dedupe: dedupeArb,
    deps: fc.array(fc.oneof(fc.record({ pick: fc.nat() }), fc.record({ index: fc.nat() })), { maxLength: 3 }),
    onDependencyFailure: optional(fc.constantFrom('cancel' as const, 'run' as const)),
  })
  .map(({ kind, queue, dedupe, deps, start, ...rest }): JobSpec => {
    const debounced = 'debounce' in dedupe;
    const options = Object.fromEntries(
      Object.entries({ ...rest, ...dedupe, ...(debounced || !('delayMs' in start) ? {} : start) }).filter(
        ([, value]) => value !== undefined,
      ),
    ) as JobSpec['options'];
    const runAt = !debounced && 'runAtInMs' in start ? { runAtInMs: start.runAtInMs } : {};
    return { kind, queue, options, ...runAt, deps: debounced || 'throttle' in dedupe ? [] : deps };
  });

export function describeSpec(spec: JobSpec): string {
  const deps = spec.deps.map((d) => ('pick' in d ? `pick ${d.pick}` : `index ${d.index}`));
  const runAt =
    spec.runAtInMs === undefined ? '' : ` runAt now${spec.runAtInMs < 0 ? '' : '+'}${spec.runAtInMs}`;
  return `${spec.kind}@${spec.queue} ${JSON.stringify(spec.options)}${runAt}${deps.length > 0 ? ` deps [${deps.join(', ')}]` : ''}`;
}

/**
 * The inputs of a batch, its picks resolved against the jobs the model knows, as the job contract
 * takes them: each dependency once, and `onDependencyFailure` only with dependencies.
 */
export function resolve(model: Model, specs: readonly JobSpec[]): EnqueueInput[] {
  return specs.map((spec, position) => {
    const dependsOn: DependencyRef[] = [];
    const listed = new Set<string>();
    const add = (ref: DependencyRef) => {
      const name = typeof ref === 'number' ? String(ref) : `#${ref.index}`;
      if (!listed.has(name)) dependsOn.push(ref);
      listed.add(name);
    };
    for (const dep of spec.deps) {
      if ('index' in dep) {
        if (position > 0) add({ index: dep.index % position });
      } else {
        const id = pickOf(model.ids, dep.pick);
        if (id !== undefined) add(id);
      }
    }
    const { onDependencyFailure, ...options } = spec.options;
    return {
      kind: spec.kind,
      queue: spec.queue,
      ...options,
      ...(spec.runAtInMs === undefined ? {} : { runAt: new Date(model.nowMs + spec.runAtInMs) }),
      ...(dependsOn.length > 0 ? { dependsOn, ...(onDependencyFailure ? { onDependencyFailure } : {}) } : {}),
    };
  });
}

/** The ids `input` asks to depend on, `{ index }` resolved against the jobs of its batch. */
function askedIds(input: EnqueueInput, batch: readonly Job[]): number[] {
  return (input.dependsOn ?? []).map((ref) => (typeof ref === 'number' ? ref : (batch[ref.index]?.id ?? 0)));
}

/** Whether `a` and `b` name the same jobs: an id and an `{ index }` of the same job count once. */
const sameIds = (a: readonly number[], b: readonly number[]): boolean => {
  const [x, y] = [new Set(a), new Set(b)];
  return x.size === y.size && [...x].every((id) => y.has(id));
};

/**
 * Whether a keyed job of `inputs` repeats one (stored before, or earlier in the batch) while it
 * may ask for other dependencies: the store then refuses with `IDEMPOTENCY_KEY_CONFLICT`. A repeat
 * inside the batch, or one with `{ index }` dependencies, is not resolved here and may conflict.
 */
export function mayConflict(inputs: readonly EnqueueInput[], before: ReadonlyMap<number, Job>): boolean {
  return inputs.some((input, i) => {
    const { idempotencyKey, kind } = input;
    if (idempotencyKey === undefined) return false;
    if (inputs.slice(0, i).some((e) => e.kind === kind && e.idempotencyKey === idempotencyKey)) return true;
    const existing = [...before.values()].find((j) => j.kind === kind && j.idempotencyKey === idempotencyKey);
    if (!existing) return false;
    const asked = input.dependsOn ?? [];
    return asked.some((ref) => typeof ref !== 'number') || !sameIds(asked as number[], existing.dependsOn);
  });
}

/** The status a new job with dependencies starts in, from its dependencies as read after. */
function expectedStart(model: Model, job: Job): readonly string[] {
  const deps = job.dependsOn.map((id) => lastKnown(model, id));
  const failed = deps.some((dep) => dep && (dep.status === 'FAILED' || dep.status === 'CANCELLED'));
  if (failed && job.onDependencyFailure !== 'run') return ['CANCELLED'];
  if (deps.every((dep) => dep && isFinal(dep.status))) return ['PENDING', 'SCHEDULED'];
  return ['WAITING'];
}

/**
 * The id an enqueue of `input` must come back as: the job of its kind and idempotency key, or the
 * `SCHEDULED` job of its kind and debounce key that never started (a retrying one keeps its own
 * payload and backoff), before the call or earlier in the batch; `'new'`
 * when there is none; `undefined` for a job the model does not predict (throttled, or plain).
 */
export function expectedKeyJob(
  input: EnqueueInput,
  earlier: readonly Job[],
  before: ReadonlyMap<number, Job>,
): number | 'new' | undefined {
  const { idempotencyKey, debounce } = input;
  let same: ((job: Job) => boolean) | undefined;
  if (idempotencyKey !== undefined) same = (job) => job.idempotencyKey === idempotencyKey;
  if (debounce !== undefined)
    same = (job) =>
      job.debounceKey === debounce.key &&
      job.status === 'SCHEDULED' &&
      job.attempts === 0 &&
      // A job asleep in its first attempt is SCHEDULED with attempts 0 too, but it has started.
      job.startedAt === null;
  if (!same) return undefined;
  const match = (job: Job): boolean => job.kind === input.kind && (same?.(job) ?? false);
  return (earlier.find(match) ?? [...before.values()].find(match))?.id ?? 'new';
}

function checkEnqueued(
  model: Model,
  inputs: readonly EnqueueInput[],
  jobs: readonly EnqueuedJob[],
  before: ReadonlyMap<number, Job>,
): void {
  if (jobs.length !== inputs.length)
    violation(model, `enqueue returned ${jobs.length} jobs for ${inputs.length}`);
  const seen = new Set<number>();
  for (const [i, job] of jobs.entries()) {
    const now = model.snapshot.get(job.id);
    if (!now) violation(model, `enqueued job #${job.id} is not stored`);
    if (job.created && (before.has(job.id) || seen.has(job.id)))
      violation(model, `enqueue says it created #${job.id}, which existed`);
    if (!job.created && !before.has(job.id) && !seen.has(job.id))
      violation(model, `enqueue says #${job.id} existed, but it is new`);
    seen.add(job.id);
    const input = inputs[i];
    const expected = input && expectedKeyJob(input, jobs.slice(0, i), before);
    if (expected !== undefined && (expected === 'new' ? !job.created : job.id !== expected))
      violation(
        model,
        `enqueue of ${JSON.stringify(input)} returned #${job.id}, expected ${expected === 'new' ? 'a new job' : `#${expected}`}`,
      );
    if (job.created && job.kind !== inputs[i]?.kind)
      violation(model, `enqueued #${job.id} has kind ${job.kind}`);
    if (!job.created && input?.idempotencyKey !== undefined && !sameIds(askedIds(input, jobs), job.dependsOn))
      violation(
        model,
        `enqueue of ${JSON.stringify(input)} answered #${job.id}, which has other dependencies`,
      );
    if (job.created && job.dependsOn.length > 0) {
      const expected = expectedStart(model, now);
      if (!expected.includes(job.status))
        violation(
          model,
          `enqueued #${job.id} started ${job.status}; its dependencies say ${expected.join(' or ')}`,
        );
    }
  }
}

/** Enqueues 1 to 3 jobs through one of the instances. */
export const enqueueCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    specs: fc.array(jobSpecArb, { minLength: 1, maxLength: 3 }),
    single: fc.boolean(),
  })
  .map(({ store, specs, single }) => {
    const one = single && specs.length === 1;
    const label = `enqueue${one ? '' : 'Many'}([${specs.map(describeSpec).join('; ')}])`;
    return modelCommand(label, async (model: Model, world: World) => {
      const inputs = resolve(model, specs);
      const text = JSON.stringify(inputs);
      const [first] = inputs;
      const result = await storeCall(
        world,
        store,
        `${one ? 'enqueue' : 'enqueueMany'}(${text})`,
        async (s) => (one && first ? [await s.enqueue(first)] : s.enqueueMany(inputs)),
      );
      if (!result.ok) {
        const missing = inputs.some((input) =>
          (input.dependsOn ?? []).some((ref) => typeof ref === 'number' && model.pruned.has(ref)),
        );
        const conflict =
          result.error.code === 'IDEMPOTENCY_KEY_CONFLICT' && mayConflict(inputs, result.before);
        if ((result.error.code !== 'DEPENDENCY_NOT_FOUND' || !missing) && !conflict)
          violation(model, `enqueue refused valid jobs: ${result.error.code} ${result.error.message}`);
        return;
      }
      checkEnqueued(model, inputs, result.value, result.before);
    });
  });
