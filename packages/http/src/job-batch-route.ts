import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { jobInputProblem, NudgeError } from '@nudge/core';
import type { EnqueueInput } from '@nudge/store';
import { BatchRejectedError } from './batch-rejected-error.js';
import { enqueuerOf, mayRead } from './caller-access.js';
import { startEnqueueTrace, traceEnqueue, withTraceContext } from './enqueue-tracing.js';
import { dedupeHitViewSchema, toDedupeHitView } from './dedupe-hit-view.js';
import type { EnginePort } from './engine-port.js';
import type { NudgeMetrics } from './nudge-metrics.js';
import { toEnqueueInput, type CreateJobBody } from './create-job-body.js';
import { errorBodySchema, type BatchProblem } from './error-body.js';
import { jobViewSchema, toJobView } from './job-view.js';
import { unknownKindError } from './unknown-kind-error.js';

/** Most jobs one `POST /jobs/batch` takes. */
export const MAX_BATCH_JOBS = 1000;

/** Body of `POST /jobs/batch`: each item is checked as a `POST /jobs` body, by index. */
export const createJobBatchBodySchema = Type.Object(
  {
    jobs: Type.Array(Type.Unknown({ description: 'A job, as the body of `POST /jobs`.' }), {
      minItems: 1,
      maxItems: MAX_BATCH_JOBS,
    }),
  },
  { additionalProperties: false },
);

/**
 * The answer: each job's view in input order, and whether this batch created it; a job it did not
 * create is `{id, status, created: false}` only to a key without `read`.
 */
const batchAnswerSchema = Type.Object({
  jobs: Type.Array(
    Type.Union([
      Type.Composite([
        jobViewSchema,
        Type.Object({
          created: Type.Boolean({ description: 'false when the job existed under its idempotency key.' }),
        }),
      ]),
      dedupeHitViewSchema,
    ]),
  ),
});

/** Job `index` as it will be stored, or why it cannot be. */
function prepare(job: unknown, index: number, engine: EnginePort): EnqueueInput | BatchProblem {
  const { kinds } = engine;
  const refused = jobInputProblem(job, '', 'text', index);
  if (refused) return { index, code: refused.code, message: refused.message };
  // The job contract accepted it, so it has the body's shape.
  const body = job as CreateJobBody;
  if (!kinds.includes(body.kind)) {
    return { index, code: 'UNKNOWN_KIND', message: unknownKindError(body.kind, kinds).message };
  }
  try {
    // The kind's defaults, and its schema (PAYLOAD_INVALID).
    return engine.prepareEnqueue(toEnqueueInput(body));
  } catch (error) {
    if (error instanceof NudgeError) return { index, code: error.code, message: error.message };
    throw error;
  }
}

const isProblem = (value: EnqueueInput | BatchProblem): value is BatchProblem => 'index' in value;

/**
 * `POST /jobs/batch` `{"jobs": [...]}`: up to {@link MAX_BATCH_JOBS} jobs, each as the body of
 * `POST /jobs`, written all or nothing in one transaction (multi-row inserts). Answers `201`
 * `{"jobs": [...]}` with each job's view in input order and `created` (false for a job whose kind
 * and idempotency key existed; `200` when that holds for all), then requests one claim. Each job
 * gets its kind's declared `maxAttempts` and `queue` when it omits them. When any job is
 * invalid (including a payload that fails its kind's schema: `PAYLOAD_INVALID`) it answers
 * `400 INVALID_BATCH` whose `errors` names every invalid job by index, with the code and message
 * a single `POST /jobs` would give, and writes nothing. A job's `dependsOn` may name an earlier job
 * of the batch as `{ "index": n }`, so a whole flow is written in one transaction; a dependency id
 * that names no job answers `400 DEPENDENCY_NOT_FOUND` and writes nothing. A job the batch did not
 * create (idempotency key, throttle window, debounce) is shown as `{id, status, created: false}`
 * to a key without `read`; a debounce of another key's job (`409 DEBOUNCE_OWNED_BY_OTHER_KEY`) or
 * a keyed repeat with other `dependsOn` (`409 IDEMPOTENCY_KEY_CONFLICT`) refuses the whole batch,
 * naming the job by index, since the batch is written all or nothing.
 */
export const jobBatchRoute: FastifyPluginAsyncTypebox<{
  engine: EnginePort;
  metrics?: NudgeMetrics | undefined;
  /** Whether a tracer provider is registered: a batch then gets a `send` span. */
  tracing?: boolean | undefined;
}> = async (app, { engine, metrics, tracing = false }) => {
  app.post(
    '/jobs/batch',
    {
      schema: {
        body: createJobBatchBodySchema,
        response: {
          201: batchAnswerSchema,
          200: batchAnswerSchema,
          '4xx': errorBodySchema,
          '5xx': errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const { jobs } = request.body;
      const prepared = jobs.map((job, index) => prepare(job, index, engine));
      const problems = prepared.filter(isProblem);
      if (problems.length > 0) throw new BatchRejectedError(problems, jobs.length);
      // Every job of the batch carries the request's trace context (see startEnqueueTrace).
      const traced = startEnqueueTrace(request, tracing, jobs.length);
      const inputs = (prepared as EnqueueInput[]).map((input) => withTraceContext(input, traced));
      // The engine writes them through the store and requests one claim.
      const written = await traceEnqueue(traced, () => engine.enqueueMany(inputs, enqueuerOf(request)));
      metrics?.enqueued(written);
      // 201 when the batch created any job; 200 when every job's idempotency key existed.
      void reply.code(written.some((job) => job.created) ? 201 : 200);
      const reads = mayRead(request);
      // The views are built field by field above: plain JSON text, without the serializer trying
      // each alternative of the union per job.
      void reply.serializer(JSON.stringify);
      return {
        jobs: written.map((job) =>
          job.created || reads ? { ...toJobView(job), created: job.created } : toDedupeHitView(job),
        ),
      };
    },
  );
};
