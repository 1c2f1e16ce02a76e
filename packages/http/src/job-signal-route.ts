import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { MAX_SIGNAL_ID_LENGTH, MAX_SIGNAL_NAME_LENGTH, NudgeError } from '@nudge/core';
import type { JobSignal, Store } from '@nudge/store';
import { characterString } from './character-string.js';
import { EXPECTED_KEYWORD } from './describe-value-error.js';
import type { EnginePort } from './engine-port.js';
import { errorBodySchema } from './error-body.js';
import { jobIdParamsSchema } from './job-id-params.js';
import { JobStateConflictError } from './job-state-conflict-error.js';

/** Body of `POST /jobs/:id/signals`. Unknown properties are refused. */
export const signalBodySchema = Type.Object(
  {
    name: characterString({
      minLength: 1,
      maxLength: MAX_SIGNAL_NAME_LENGTH,
      [EXPECTED_KEYWORD]: `a string of 1 to ${MAX_SIGNAL_NAME_LENGTH} characters`,
      description: 'The signal’s name: what ctx.waitForSignal(name) waits for.',
    }),
    payload: Type.Optional(
      Type.Unknown({
        description: 'What the wait returns, any JSON value (nested at most 100 levels). Default null.',
      }),
    ),
    signalId: Type.Optional(
      characterString({
        minLength: 1,
        maxLength: MAX_SIGNAL_ID_LENGTH,
        [EXPECTED_KEYWORD]: `a string of 1 to ${MAX_SIGNAL_ID_LENGTH} characters`,
        description:
          'Your id for this signal: sending it again to the same job stores nothing and answers 200 with the signal first sent with it.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The static type of {@link signalBodySchema}. */
export type SignalBody = Static<typeof signalBodySchema>;

/** A stored signal as the API shows it. */
export const signalViewSchema = Type.Object(
  {
    id: Type.Integer({
      minimum: 1,
      description: 'The signal’s id, ascending in the order signals were sent.',
    }),
    jobId: Type.Integer({ minimum: 1 }),
    name: Type.String(),
    payload: Type.Unknown({ description: 'The payload sent, any JSON value; null when none was.' }),
    signalId: Type.Union([Type.String(), Type.Null()], {
      description: 'The sender’s id, null when none was given.',
    }),
    createdAt: Type.String({
      format: 'date-time',
      description: 'When the signal was stored (database clock).',
    }),
  },
  { additionalProperties: false },
);

/** The static type of {@link signalViewSchema}. */
export type SignalView = Static<typeof signalViewSchema>;

/** The API view of a stored signal. */
export function toSignalView(signal: JobSignal): SignalView {
  return {
    id: signal.id,
    jobId: signal.jobId,
    name: signal.name,
    payload: signal.payload,
    signalId: signal.signalId,
    createdAt: signal.createdAt.toISOString(),
  };
}

/** Options of {@link jobSignalRoute}. */
export interface JobSignalRouteOptions {
  /** Read for the status of a finished job that refused a signal. */
  readonly store: Store;
  readonly engine: EnginePort;
}

const errors = { '4xx': errorBodySchema, '5xx': errorBodySchema };

/**
 * `POST /jobs/:id/signals` (scope `enqueue`): sends the signal `name` with `payload` to the job,
 * through the engine (which asks for a claim, so a job the signal released from its
 * `ctx.waitForSignal` starts at once). A job `WAITING` for that name becomes `PENDING` in the
 * signal's own transaction; a signal sent before the wait is kept, and the wait returns it.
 *
 * Answers `201` with the signal; `200` with the signal first sent with `signalId` when the body
 * repeats one (nothing is stored); `404 JOB_NOT_FOUND` for an unknown job; `409
 * JOB_STATE_CONFLICT` (with the job's `status`) for a finished one; `400 INVALID_REQUEST`,
 * `PAYLOAD_TOO_DEEP` or `PAYLOAD_UNSTORABLE` for a bad body.
 */
export const jobSignalRoute: FastifyPluginAsyncTypebox<JobSignalRouteOptions> = async (
  app,
  { store, engine },
) => {
  app.post(
    '/jobs/:id/signals',
    {
      schema: {
        params: jobIdParamsSchema,
        body: signalBodySchema,
        response: { 200: signalViewSchema, 201: signalViewSchema, ...errors },
      },
    },
    async (request, reply) => {
      const id = Number(request.params.id);
      const { name, payload, signalId } = request.body;
      try {
        const sent = await engine.sendSignal({
          jobId: id,
          name,
          // The body came from JSON.parse, so the payload is JSON.
          payloadJson: payload === undefined ? null : JSON.stringify(payload),
          ...(signalId === undefined ? {} : { signalId }),
        });
        void reply.code(sent.created ? 201 : 200);
        return toSignalView(sent.signal);
      } catch (error) {
        if (error instanceof NudgeError && error.code === 'JOB_STATE_CONFLICT') {
          const job = await store.getJob(id);
          if (job) throw new JobStateConflictError(id, 'signal', job.status);
        }
        throw error;
      }
    },
  );
};
