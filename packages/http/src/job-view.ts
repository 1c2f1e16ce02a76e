import { Type, type Static } from '@sinclair/typebox';
import { JOB_STATUSES, type Job } from '@nudge/core';
import { stepViewSchema, waitingForSchema } from './job-steps-view.js';

const timestamp = (description: string) => Type.String({ format: 'date-time', description });
const nullableTimestamp = (description: string) => Type.Union([timestamp(description), Type.Null()]);

/**
 * A job as the API shows it: camelCase, times as ISO-8601 UTC strings with milliseconds, `null`
 * where a value is not set yet. Internal bookkeeping (lease, owner, fencing version) is not shown.
 */
export const jobViewSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    kind: Type.String(),
    queue: Type.String({ description: 'The named queue the job waits in.' }),
    status: Type.Union(JOB_STATUSES.map((status) => Type.Literal(status))),
    attempts: Type.Integer({ description: 'Attempts started so far.' }),
    maxAttempts: Type.Integer(),
    priority: Type.Integer({ description: 'Lower runs first.' }),
    runAt: timestamp('Earliest time the job may start.'),
    payload: Type.Unknown({ description: 'The handler input, any JSON value.' }),
    result: Type.Unknown({ description: "The handler's return value once SUCCEEDED, else null." }),
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'Why the latest attempt failed.' }),
    progress: Type.Unknown({
      description:
        'The latest progress the handler reported (ctx.progress): a number from 0 to 100 or a small JSON object; null before any. Kept after the job finishes.',
    }),
    errors: Type.Array(
      Type.Object(
        {
          attempt: Type.Integer({ minimum: 1, description: 'The failed attempt’s number.' }),
          at: timestamp('When the failure was recorded.'),
          error: Type.String({ description: 'The error message (at most 8,192 characters).' }),
          instance: Type.Union([Type.String(), Type.Null()], {
            description: 'The worker id of the instance that ran the attempt; null when none did.',
          }),
        },
        { additionalProperties: false },
      ),
      { description: 'The latest failed attempts, oldest first, at most 10.' },
    ),
    idempotencyKey: Type.Union([Type.String(), Type.Null()], {
      description: "The producer's idempotency key, unique per kind while the job is kept.",
    }),
    concurrencyKey: Type.Union([Type.String(), Type.Null()], {
      description:
        "The job's concurrency key: with the queue's keyConcurrency, how many jobs with it run at once.",
    }),
    throttleKey: Type.Union([Type.String(), Type.Null()], {
      description:
        "The key of the producer's throttle option: at most one job per kind and key is created in each window. Null when not throttled.",
    }),
    debounceKey: Type.Union([Type.String(), Type.Null()], {
      description:
        "The key of the producer's debounce option: one job per kind and key waits SCHEDULED, and each enqueue replaces its payload and moves its start. Null when not debounced.",
    }),
    createdAt: timestamp('When the job was enqueued.'),
    startedAt: nullableTimestamp('Start of the latest attempt.'),
    finishedAt: nullableTimestamp('When the job reached SUCCEEDED, FAILED or CANCELLED.'),
    dependsOn: Type.Array(Type.Integer({ minimum: 1 }), {
      description:
        'Ids of the jobs this one waits for (its dependsOn, batch indexes resolved), in the order given; empty when none.',
    }),
    onDependencyFailure: Type.Union([Type.Literal('cancel'), Type.Literal('run'), Type.Null()], {
      description:
        "What a dependency that ends FAILED or CANCELLED does to this job: 'cancel' it or 'run' it anyway; null without dependencies.",
    }),
    blockedBy: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), {
        description:
          'GET /jobs/:id of a job with dependencies: the ids among dependsOn that have not finished yet (what keeps it WAITING).',
      }),
    ),
    steps: Type.Optional(
      Type.Array(stepViewSchema, {
        description:
          'GET /jobs/:id of a job with durable steps (ctx.step, ctx.sleep, ctx.waitForSignal) or signals: its steps, in the order first recorded.',
      }),
    ),
    waitingFor: Type.Optional(waitingForSchema),
  },
  { additionalProperties: false },
);

/** The static type of {@link jobViewSchema}. */
export type JobView = Static<typeof jobViewSchema>;

/** The API view of a stored job. */
export function toJobView(job: Job): JobView {
  return {
    id: job.id,
    kind: job.kind,
    queue: job.queue,
    status: job.status,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    priority: job.priority,
    runAt: job.runAt.toISOString(),
    payload: job.payload,
    result: job.result,
    lastError: job.lastError,
    progress: job.progress,
    errors: job.errors.map((e) => ({
      attempt: e.attempt,
      at: e.at.toISOString(),
      error: e.error,
      instance: e.instance,
    })),
    idempotencyKey: job.idempotencyKey,
    concurrencyKey: job.concurrencyKey,
    throttleKey: job.throttleKey,
    debounceKey: job.debounceKey,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    dependsOn: [...job.dependsOn],
    onDependencyFailure: job.onDependencyFailure,
  };
}

/**
 * A {@link JobView} as JSON: the same text Fastify's serializer for {@link jobViewSchema} writes
 * ({@link toJobView} builds the properties in the schema's order), without the checks of each
 * `Type.Union` alternative that serializer runs on every answer (a `date-time` format test per
 * nullable time). For `reply.serializer()` on routes that answer with a view they built.
 */
export function jobViewJson(view: JobView): string {
  return JSON.stringify(view);
}
