import { Type, type Static } from '@sinclair/typebox';
import { NO_DEADLINE, type Job } from '@nudge/core';
import type { JobStep } from '@nudge/store';

const timestamp = (description: string) => Type.String({ format: 'date-time', description });
const nullableTimestamp = (description: string) => Type.Union([timestamp(description), Type.Null()]);

/**
 * One durable step of a job as `GET /jobs/:id` shows it: a `ctx.step`, a sleep or a signal wait.
 * A step's result is not shown (it may be up to 1 MiB, and a job may have many steps).
 */
export const stepViewSchema = Type.Object(
  {
    name: Type.String({ description: 'The name the handler gave the step, unique within the job.' }),
    type: Type.Union([Type.Literal('step'), Type.Literal('sleep'), Type.Literal('signal')], {
      description:
        "'step' for ctx.step, 'sleep' for ctx.sleep or ctx.sleepUntil, 'signal' for ctx.waitForSignal.",
    }),
    status: Type.Union(
      [
        Type.Literal('SUCCEEDED'),
        Type.Literal('FAILED'),
        Type.Literal('SLEEPING'),
        Type.Literal('WAITING'),
        Type.Literal('TIMED_OUT'),
      ],
      {
        description:
          'A step SUCCEEDED (its result is kept and never computed again) or FAILED (run again by the next attempt); a sleep is SLEEPING; a signal wait is WAITING, or TIMED_OUT once its deadline passed.',
      },
    ),
    attempt: Type.Integer({ minimum: 1, description: 'The attempt that last wrote the step.' }),
    startedAt: timestamp('When the step started (database clock).'),
    endedAt: nullableTimestamp('When the step finished; null for a sleep or a wait.'),
    durationMs: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'endedAt minus startedAt, in ms; null while it has not ended.',
    }),
    error: Type.Union([Type.String(), Type.Null()], { description: "A FAILED step's error message." }),
    wakeAt: nullableTimestamp("A sleep's wake-up time or a signal wait's deadline; null otherwise."),
  },
  { additionalProperties: false },
);

/** The static type of {@link stepViewSchema}. */
export type StepView = Static<typeof stepViewSchema>;

/** What a job that is not running waits for, in `GET /jobs/:id`. */
export const waitingForSchema = Type.Union(
  [
    Type.Object(
      {
        signal: Type.String({ description: 'The name of the signal the job waits for (ctx.waitForSignal).' }),
        deadline: nullableTimestamp('When the wait ends without the signal (it returns null); null: never.'),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        dependencies: Type.Array(Type.Integer({ minimum: 1 }), {
          description: 'The ids among dependsOn that have not finished.',
        }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { wakeAt: timestamp('When the job wakes from its sleep (ctx.sleep) and runs again.') },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      'GET /jobs/:id of a WAITING job, or of a SCHEDULED one asleep: the signal and its deadline, the unfinished dependencies, or the wake-up time.',
  },
);

/** The static type of {@link waitingForSchema}. */
export type WaitingForView = Static<typeof waitingForSchema>;

/** The API view of a stored step. */
export function toStepView(step: JobStep): StepView {
  return {
    name: step.name,
    type: step.type,
    status: step.status,
    attempt: step.attempt,
    startedAt: step.startedAt.toISOString(),
    endedAt: step.endedAt?.toISOString() ?? null,
    durationMs: step.endedAt ? Math.max(0, step.endedAt.getTime() - step.startedAt.getTime()) : null,
    error: step.error,
    wakeAt: step.wakeAt?.toISOString() ?? null,
  };
}

/**
 * What `job` waits for, or `undefined` when it waits for nothing it could show:
 * - `WAITING` with a `waitSignal`: that signal, and its deadline (`runAt`; `null` without one);
 * - `WAITING` for dependencies: `blockedBy`, those not finished;
 * - `SCHEDULED` whose latest step is a sleep still `SLEEPING` that wakes no earlier than the job's
 *   `runAt` (a sleep slept long ago, before a failure's backoff, is not what it waits for): the
 *   wake-up time (the job's `runAt`).
 *
 * @param blockedBy - the job's unfinished dependencies, when it has any
 * @param steps - the job's steps in order, when it has any
 */
export function waitingFor(
  job: Job,
  blockedBy: readonly number[] | undefined,
  steps: readonly JobStep[] | undefined,
): WaitingForView | undefined {
  if (job.status === 'WAITING') {
    if (job.waitSignal !== null) {
      const deadline = job.runAt.getTime() >= NO_DEADLINE.getTime() ? null : job.runAt.toISOString();
      return { signal: job.waitSignal, deadline };
    }
    if (blockedBy !== undefined) return { dependencies: [...blockedBy] };
    return undefined;
  }
  if (job.status !== 'SCHEDULED' || steps === undefined) return undefined;
  const latest = steps.at(-1);
  if (latest?.type !== 'sleep' || latest.status !== 'SLEEPING' || latest.wakeAt === null) return undefined;
  // Times of one suspend agree to the ms; a tolerance of 1 ms covers rounding.
  return latest.wakeAt.getTime() + 1 >= job.runAt.getTime() ? { wakeAt: job.runAt.toISOString() } : undefined;
}
