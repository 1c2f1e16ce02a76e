import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { NudgeError } from '@nudge/core';
import type { JobCommandResult } from '@nudge/store';
import type { EnginePort } from './engine-port.js';
import { errorBodySchema } from './error-body.js';
import { jobIdParamsSchema } from './job-id-params.js';
import { JobStateConflictError } from './job-state-conflict-error.js';
import { jobViewSchema, toJobView, type JobView } from './job-view.js';
import { optionalBody } from './optional-body.js';
import { retryStepsFields } from './retry-steps-fields.js';

const errors = { '4xx': errorBodySchema, '5xx': errorBodySchema };

/** Body of `POST /jobs/:id/retry`: optional; what becomes of the job's steps. */
export const retryJobBodySchema = optionalBody(
  Type.Object(retryStepsFields, { additionalProperties: false }),
  'Optional: what becomes of the steps the job recorded. No body (or {}) keeps them all, so the job resumes where it failed.',
);

function answer(id: number, command: 'cancel' | 'retry', result: JobCommandResult): JobView {
  switch (result.outcome) {
    case 'changed':
      return toJobView(result.job);
    case 'conflict':
      throw new JobStateConflictError(id, command, result.job.status);
    case 'blocked': {
      const { id: dependency, status } = result.dependency;
      throw new NudgeError(
        'DEPENDENCY_FAILED',
        `job ${id} cannot be retried: its dependency ${dependency} ${status === null ? 'no longer exists' : `ended ${status}`}` +
          ` and it cancels on a failed dependency, so it would be cancelled again: retry job ${dependency} first` +
          ' (then this job waits for it), or both in one POST /jobs/retry',
      );
    }
    case 'not-found':
      throw new NudgeError('JOB_NOT_FOUND', `no job has id ${id}`);
  }
}

/**
 * Job commands.
 *
 * - `POST /jobs/:id/cancel`: a `SCHEDULED`, `PENDING` or `RUNNING` job becomes `CANCELLED` at
 *   once (a running attempt is aborted through `ctx.signal`: at once on this instance, within one
 *   heartbeat on another; its late outcome changes nothing).
 * - `POST /jobs/:id/retry`: a `FAILED` or `CANCELLED` job becomes `PENDING` with fresh attempts
 *   (`WAITING` while one of its dependencies has not finished); `409 DEPENDENCY_FAILED` when it
 *   cancels on a failed dependency and one ended `FAILED` or `CANCELLED`. Its recorded steps are
 *   kept (it resumes where it failed) unless the optional body says `{ "fromStep": "<name>" }`
 *   (that step and the ones recorded after it are cleared) or `{ "resetSteps": true }` (all are
 *   cleared), in the retry's transaction; signals sent to it stay. Both at once is
 *   `400 INVALID_REQUEST`; a `fromStep` the job never recorded is `400 STEP_NOT_FOUND` (after the
 *   status check); nothing changes then.
 *
 * Both answer `200` with the job's view, `409 JOB_STATE_CONFLICT` (with the job's `status`) when
 * its status does not allow the command, or `404 JOB_NOT_FOUND`.
 */
export const jobCommandRoutes: FastifyPluginAsyncTypebox<{ engine: EnginePort }> = async (
  app,
  { engine },
) => {
  const schema = { params: jobIdParamsSchema, response: { 200: jobViewSchema, ...errors } };
  app.post('/jobs/:id/cancel', { schema }, async (request) => {
    const id = Number(request.params.id);
    return answer(id, 'cancel', await engine.cancel(id));
  });
  app.post('/jobs/:id/retry', { schema: { ...schema, body: retryJobBodySchema } }, async (request) => {
    const id = Number(request.params.id);
    const body = request.body;
    const steps = body === null ? undefined : { fromStep: body.fromStep, resetSteps: body.resetSteps };
    return answer(id, 'retry', await engine.retry(id, steps));
  });
};
