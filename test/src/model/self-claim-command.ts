// The model test's enqueueAndClaim: a producer inside an instance inserts a job already claimed
// by that instance, which it may do only when no due job of its kinds comes first in claim order
// and the job's queue is neither paused nor limited.
import fc from 'fast-check';
import { describeSpec, expectedKeyJob, jobSpecArb, mayConflict, resolve } from './enqueue-command.js';
import { modelCommand, type ModelCommand } from './model-command.js';
import { describeJob, MODEL_KINDS, MODEL_LEASE_MS, queueOf } from './model-state.js';
import { CLOCK_LEAD_MS, storeCall, workerOf } from './model-world.js';
import { violation } from './violation.js';

export const enqueueAndClaimCommand: fc.Arbitrary<ModelCommand> = fc
  .record({ store: fc.nat({ max: 2 }), spec: jobSpecArb, onlyA: fc.boolean() })
  .map(({ store, spec, onlyA }) => {
    const kinds = onlyA ? ['a'] : [...MODEL_KINDS];
    const workerId = workerOf(store);
    return modelCommand(
      `enqueueAndClaim(${describeSpec(spec)}, kinds ${kinds.join('')}, via ${workerId})`,
      async (model, world) => {
        const [input] = resolve(model, [spec]);
        if (!input) return;
        // The lease counts from the database clock, behind the virtual one by the lead.
        const claim = { workerId, leaseMs: CLOCK_LEAD_MS + MODEL_LEASE_MS, kinds };
        const result = await storeCall(
          world,
          store,
          `enqueueAndClaim(${JSON.stringify(input)}, ${kinds.join('')})`,
          (s) => s.enqueueAndClaim(input, claim),
        );
        if (!result.ok) {
          const missing = (input.dependsOn ?? []).some(
            (ref) => typeof ref === 'number' && model.pruned.has(ref),
          );
          const conflict =
            result.error.code === 'IDEMPOTENCY_KEY_CONFLICT' && mayConflict([input], result.before);
          if ((result.error.code !== 'DEPENDENCY_NOT_FOUND' || !missing) && !conflict)
            violation(
              model,
              `enqueueAndClaim refused a valid job: ${result.error.code} ${result.error.message}`,
            );
          return;
        }
        const job = result.value;
        const expected = expectedKeyJob(input, [], result.before);
        if (expected !== undefined && (expected === 'new' ? !job.created : job.id !== expected))
          violation(
            model,
            `enqueueAndClaim returned #${job.id}, expected ${expected === 'new' ? 'a new job' : `#${expected}`}`,
          );
        if (job.status !== 'RUNNING' || !job.created) return;
        const queue = queueOf(model, job.queue);
        const why =
          input.dependsOn !== undefined || input.throttle !== undefined || input.debounce !== undefined
            ? 'it has dependencies or a dedupe option'
            : (input.delayMs ?? 0) > 0 || (input.runAt?.getTime() ?? 0) > (job.startedAt?.getTime() ?? 0) + 1
              ? 'it is not due yet'
              : queue.paused
                ? `queue ${job.queue} is paused`
                : queue.concurrency !== null || queue.keyConcurrency !== null || queue.rate !== null
                  ? `queue ${job.queue} has limits`
                  : undefined;
        if (why) violation(model, `enqueueAndClaim inserted ${describeJob(job)} claimed, though ${why}`);
        const first = [...result.before.values()].find(
          (other) =>
            other.status === 'PENDING' &&
            kinds.includes(other.kind) &&
            other.priority <= job.priority &&
            other.runAt.getTime() < job.runAt.getTime() - 1,
        );
        if (first)
          violation(model, `enqueueAndClaim claimed #${job.id} though due ${describeJob(first)} comes first`);
        if (job.claimedBy !== workerId || job.attempts !== 1 || job.version !== 1)
          violation(model, `enqueueAndClaim left ${describeJob(job)} claimed by ${job.claimedBy}`);
        // A new job has no steps or signals: its claim ships none.
        model.leases.push({
          id: job.id,
          version: job.version,
          workerId,
          attempt: job.attempts,
          shipped: undefined,
          used: new Set(),
        });
        queue.starts.push({ atMs: model.nowMs, step: model.step });
      },
    );
  });
