import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { NudgeError } from '@nudge/core';
import type { Store } from '@nudge/store';
import { EXPECTED_KEYWORD } from './describe-value-error.js';
import { errorBodySchema } from './error-body.js';
import { jobIdParamsSchema } from './job-id-params.js';
import { listedJobSchema } from './job-list-route.js';
import { toJobView } from './job-view.js';

/** Most dependents one page of `GET /jobs/:id/dependents` returns. */
export const MAX_DEPENDENTS_LIMIT = 100;
/** Dependents per page when `limit` is not given. */
export const DEFAULT_DEPENDENTS_LIMIT = 50;

/** Query of `GET /jobs/:id/dependents`: a page size and a keyset cursor. */
export const listDependentsQuerySchema = Type.Object(
  {
    limit: Type.Optional(
      Type.String({
        pattern: `^(?:[1-9]|[1-9][0-9]|100)$`,
        [EXPECTED_KEYWORD]: `a whole number from 1 to ${MAX_DEPENDENTS_LIMIT}`,
        description: `Dependents per page (default ${DEFAULT_DEPENDENTS_LIMIT}).`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,14}$',
        [EXPECTED_KEYWORD]: 'the nextCursor of the previous page',
        description: 'The nextCursor of the previous page: the dependents after it are listed.',
      }),
    ),
  },
  { additionalProperties: false },
);

const dependentsAnswerSchema = Type.Object({
  jobs: Type.Array(listedJobSchema, {
    description: 'The jobs whose dependsOn names this job, oldest first, without payload and result.',
  }),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `cursor` for the next page; null when no dependent follows.',
  }),
});

/** The static type of the answer of `GET /jobs/:id/dependents`. */
export type DependentsAnswer = Static<typeof dependentsAnswerSchema>;

/**
 * `GET /jobs/:id/dependents` (scope `read`): the jobs whose `dependsOn` names job `id` (its direct
 * dependents, the other way of `dependsOn`), oldest first, whatever their status, each as
 * `GET /jobs` lists it (without `payload` and `result`); at most `limit` (default 50, at most 100)
 * after `cursor`. Answers `404 JOB_NOT_FOUND` for an unknown job (one deleted by retention
 * included).
 */
export const jobDependentsRoute: FastifyPluginAsyncTypebox<{ store: Store }> = async (app, { store }) => {
  app.get(
    '/jobs/:id/dependents',
    {
      schema: {
        params: jobIdParamsSchema,
        querystring: listDependentsQuerySchema,
        response: { 200: dependentsAnswerSchema, '4xx': errorBodySchema, '5xx': errorBodySchema },
      },
    },
    async (request): Promise<DependentsAnswer> => {
      const id = Number(request.params.id);
      const limit =
        request.query.limit === undefined ? DEFAULT_DEPENDENTS_LIMIT : Number(request.query.limit);
      const afterId = request.query.cursor === undefined ? undefined : Number(request.query.cursor);
      const [job, dependents] = await Promise.all([
        store.getJob(id),
        store.listDependents({ id, limit, ...(afterId === undefined ? {} : { afterId }) }),
      ]);
      if (!job) throw new NudgeError('JOB_NOT_FOUND', `no job has id ${id}`);
      const last = dependents.at(-1);
      return {
        jobs: dependents.map((dependent) => {
          const { payload: _payload, result: _result, ...view } = toJobView(dependent);
          return view;
        }),
        nextCursor: dependents.length === limit && last ? String(last.id) : null,
      };
    },
  );
};
