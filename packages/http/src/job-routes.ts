import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { markJobInputChecked, NudgeError, TERMINAL_STATUSES, type Job } from '@nudge/core';
import type { Store } from '@nudge/store';
import type { EnginePort } from './engine-port.js';
import { enqueuerOf, mayRead } from './caller-access.js';
import { startEnqueueTrace, traceEnqueue, withTraceContext } from './enqueue-tracing.js';
import { createJobBodySchema, toEnqueueInput } from './create-job-body.js';
import { dedupeHitViewSchema, toDedupeHitView } from './dedupe-hit-view.js';
import { errorBodySchema } from './error-body.js';
import { jobIdParamsSchema } from './job-id-params.js';
import { toStepView, waitingFor } from './job-steps-view.js';
import { jobViewJson, jobViewSchema, toJobView } from './job-view.js';
import { unknownKindError } from './unknown-kind-error.js';
import type { NudgeMetrics } from './nudge-metrics.js';

/** Options of {@link jobRoutes}. */
export interface JobRoutesOptions {
  readonly store: Store;
  readonly engine: EnginePort;
  /** Counts the jobs created, when given. */
  readonly metrics?: NudgeMetrics;
  /** Whether a tracer provider is registered: enqueues then get `send` spans. @defaultValue false */
  readonly tracing?: boolean;
}

const errors = { '4xx': errorBodySchema, '5xx': errorBodySchema };

/**
 * The jobs resource.
 *
 * - `POST /jobs` validates the body by the job contract of `@nudge/core` (documented as {@link createJobBodySchema}), refuses a kind the engine has
 *   no handler for (`400 UNKNOWN_KIND`), enqueues the job through the engine (which starts it at
 *   once when this instance has a free slot and nothing due should run first, else requests a
 *   claim) and answers `201` with the job's view and a `Location` header. A job whose kind and
 *   `idempotencyKey` exist (or whose throttle window is open, or whose debounce key holds a
 *   waiting job) creates nothing and answers `200` with the existing job: its whole view to a
 *   caller that may read jobs, `{id, status, created: false}` to a key without `read`. A debounce
 *   by a key that is not an admin's replaces only a job that key enqueued, else answers
 *   `409 DEBOUNCE_OWNED_BY_OTHER_KEY`; a repeat whose `dependsOn` differs from the existing
 *   job's answers `409 IDEMPOTENCY_KEY_CONFLICT`. A payload no
 *   dialect stores alike answers `400 PAYLOAD_TOO_DEEP` or `400 PAYLOAD_UNSTORABLE` naming its
 *   JSON Pointer. `delayMs` with `runAt` answers `400 INVALID_REQUEST` naming both. The kind's
 *   declared `maxAttempts` and `queue` fill in what the body omits, and a payload that does not
 *   match the kind's `schema` answers `400 PAYLOAD_INVALID` naming the JSON Pointer of the first
 *   value at fault (`/payload/to must be string (got 5)`). A refused request writes nothing.
 * - `GET /jobs/:id` answers `200` with the view, or `404 JOB_NOT_FOUND`. A job with dependencies
 *   also shows `blockedBy`: those of its `dependsOn` that have not finished. A job with durable
 *   steps or signals (`hasSteps`) shows its `steps` (without their results), and a job that waits
 *   shows `waitingFor`: a signal and its deadline, its unfinished dependencies, or the wake-up
 *   time of its sleep (see `waitingFor`).
 */
export const jobRoutes: FastifyPluginAsyncTypebox<JobRoutesOptions> = async (
  app,
  { store, engine, metrics, tracing = false },
) => {
  // The handler module's kinds are fixed for the engine's life: one lookup set, not an array
  // built and sorted per request.
  const kinds = new Set(engine.kinds);
  app.post(
    '/jobs',
    {
      schema: {
        body: createJobBodySchema,
        response: { 200: Type.Union([jobViewSchema, dedupeHitViewSchema]), 201: jobViewSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { kind } = request.body;
      if (!kinds.has(kind)) throw unknownKindError(kind, engine.kinds);
      // The body passed the job contract (shape, limits, storability), so the store need not walk
      // it again; the engine applies the kind's defaults and schema, whose messages name the
      // JSON Pointer in the body as well.
      // The job carries the request's trace context (see startEnqueueTrace).
      const traced = startEnqueueTrace(request, tracing, 1);
      const input = withTraceContext(toEnqueueInput(request.body), traced);
      const job = await traceEnqueue(traced, () =>
        engine.enqueue(markJobInputChecked(input), enqueuerOf(request)),
      );
      metrics?.enqueued([job]);
      // An existing idempotency key: nothing was created, the existing job is the answer.
      void reply.code(job.created ? 201 : 200).header('location', `/jobs/${job.id}`);
      if (!job.created && !mayRead(request)) return toDedupeHitView(job);
      void reply.serializer(jobViewJson);
      return toJobView(job);
    },
  );

  app.get(
    '/jobs/:id',
    { schema: { params: jobIdParamsSchema, response: { 200: jobViewSchema, ...errors } } },
    async (request, reply) => {
      const job = await store.getJob(Number(request.params.id));
      if (!job) throw new NudgeError('JOB_NOT_FOUND', `no job has id ${request.params.id}`);
      void reply.serializer(jobViewJson);
      if (job.dependsOn.length === 0 && !job.hasSteps && job.waitSignal === null) return toJobView(job);
      // Only a job with dependencies or steps costs a read more, each.
      const [blocked, read] = await Promise.all([
        job.dependsOn.length === 0 ? undefined : blockedBy(store, job),
        job.hasSteps ? store.jobSteps(job.id) : undefined,
      ]);
      const waiting = waitingFor(job, blocked, read?.steps);
      return {
        ...toJobView(job),
        ...(blocked === undefined ? {} : { blockedBy: blocked }),
        ...(read === undefined ? {} : { steps: read.steps.map(toStepView) }),
        ...(waiting === undefined ? {} : { waitingFor: waiting }),
      };
    },
  );
};

/** The ids of `job`'s dependencies that have not finished; a deleted one had finished. */
async function blockedBy(store: Store, job: Job): Promise<number[]> {
  const outcomes = await store.dependencyOutcomes(job.dependsOn, { results: false });
  return job.dependsOn.filter((id) => {
    const status = outcomes.get(id)?.status;
    return status !== undefined && !TERMINAL_STATUSES.includes(status);
  });
}
