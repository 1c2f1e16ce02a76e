import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { JOB_LOG_LEVELS, NudgeError } from '@nudge/core';
import type { JobLogPage, Store } from '@nudge/store';
import { EXPECTED_KEYWORD } from './describe-value-error.js';
import { errorBodySchema } from './error-body.js';
import { jobIdParamsSchema } from './job-id-params.js';

/** Lines per page of `GET /jobs/:id/logs` when `limit` is not given. */
export const DEFAULT_LOG_LIMIT = 100;

/** Most lines per page of `GET /jobs/:id/logs`. */
export const MAX_LOG_LIMIT = 1000;

/** The largest `seq` a line can have (a 32-bit column): a later `after` reads nothing. */
const MAX_SEQ = 2_147_483_647;

/** Query of `GET /jobs/:id/logs`. Unknown parameters are refused. */
export const jobLogsQuerySchema = Type.Object(
  {
    after: Type.Optional(
      Type.String({
        pattern: '^(?:0|[1-9][0-9]{0,14})$',
        [EXPECTED_KEYWORD]: 'a whole number from 0, such as the cursor of the previous page',
        description:
          'Lines with a seq over this one: the cursor of the previous page. Default 0 (the first line).',
      }),
    ),
    limit: Type.Optional(
      Type.String({
        pattern: '^(?:[1-9][0-9]{0,2}|1000)$',
        [EXPECTED_KEYWORD]: `a whole number from 1 to ${MAX_LOG_LIMIT}`,
        description: `Most lines in the page, 1 to ${MAX_LOG_LIMIT}. Default ${DEFAULT_LOG_LIMIT}.`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** One stored line as the API shows it. */
export const jobLogLineSchema = Type.Object(
  {
    seq: Type.Integer({ minimum: 1, description: 'Position in the job’s log, from 1, across its attempts.' }),
    attempt: Type.Integer({ minimum: 1, description: 'The attempt that wrote the line.' }),
    level: Type.Union(
      JOB_LOG_LEVELS.map((level) => Type.Literal(level)),
      { description: 'ctx.log.debug, info, warn or error.' },
    ),
    message: Type.String(),
    fields: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: 'The fields given with the line, a JSON object; null without.',
    }),
    at: Type.String({ format: 'date-time', description: 'When the line was stored (database clock).' }),
  },
  { additionalProperties: false },
);

/** Body of a `200` of `GET /jobs/:id/logs`. */
export const jobLogsViewSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'The job’s id.' }),
    lines: Type.Array(jobLogLineSchema, { description: 'Lines after `after`, oldest first.' }),
    dropped: Type.Integer({
      minimum: 0,
      description: 'Lines of the job dropped over its caps (logLinesPerJob, logBytesPerJob), all attempts.',
    }),
    cursor: Type.Integer({
      minimum: 0,
      description:
        'The `after` of the next page: the last seq returned, or the `after` given when no line came.',
    }),
  },
  { additionalProperties: false },
);

/** The static type of {@link jobLogsViewSchema}. */
export type JobLogsView = Static<typeof jobLogsViewSchema>;

/** The API view of a page of job `id`'s log read after `after`. */
export function toJobLogsView(id: number, after: number, page: JobLogPage): JobLogsView {
  const last = page.lines.at(-1);
  return {
    id,
    lines: page.lines.map((line) => ({
      seq: line.seq,
      attempt: line.attempt,
      level: line.level,
      message: line.message,
      fields: line.fieldsJson === null ? null : (JSON.parse(line.fieldsJson) as Record<string, unknown>),
      at: line.at.toISOString(),
    })),
    dropped: page.dropped,
    cursor: last === undefined ? after : last.seq,
  };
}

/** Options of {@link jobLogsRoute}. */
export interface JobLogsRouteOptions {
  readonly store: Store;
}

const errors = { '4xx': errorBodySchema, '5xx': errorBodySchema };

/**
 * `GET /jobs/:id/logs?after=<seq>&limit=<n>`: a page of the job's `ctx.log` lines, oldest first,
 * with the count of lines dropped over its caps and the `cursor` to pass as `after` for the next
 * page (`read` scope, as every `GET`). `404 JOB_NOT_FOUND` when no job has the id (retention
 * deletes a job's lines with it); `400 INVALID_REQUEST` for a query outside the schema.
 */
export const jobLogsRoute: FastifyPluginAsyncTypebox<JobLogsRouteOptions> = async (app, { store }) => {
  app.get(
    '/jobs/:id/logs',
    {
      schema: {
        params: jobIdParamsSchema,
        querystring: jobLogsQuerySchema,
        response: { 200: jobLogsViewSchema, ...errors },
      },
    },
    async (request) => {
      const id = Number(request.params.id);
      const after = Number(request.query.after ?? 0);
      const limit = request.query.limit === undefined ? DEFAULT_LOG_LIMIT : Number(request.query.limit);
      const page = await store.readJobLogs({ jobId: id, after: Math.min(after, MAX_SEQ), limit });
      if (!page) throw new NudgeError('JOB_NOT_FOUND', `no job has id ${request.params.id}`);
      return toJobLogsView(id, after, page);
    },
  );
};
