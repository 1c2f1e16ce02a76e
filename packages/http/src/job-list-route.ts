import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import {
  JOB_FIELD_EXPECTED,
  JOB_STATUSES,
  MAX_KIND_LENGTH,
  NudgeError,
  QUEUE_NAME_PATTERN,
} from '@nudge/core';
import { characterString } from './character-string.js';
import type { Store } from '@nudge/store';
import { QUEUE_NAME_EXPECTED } from './create-job-body.js';
import { EXPECTED_KEYWORD } from './describe-value-error.js';
import { errorBodySchema } from './error-body.js';
import { jobViewSchema, toJobView } from './job-view.js';

/** Most jobs one page or one `ids` read returns. */
export const MAX_LIST_LIMIT = 100;
/** Jobs per page when `limit` is not given. */
export const DEFAULT_LIST_LIMIT = 50;

const ID = '[1-9][0-9]{0,14}';

/** Query of `GET /jobs`: filters and a keyset cursor, or a list of ids. */
export const listJobsQuerySchema = Type.Object(
  {
    status: Type.Optional(Type.Union(JOB_STATUSES.map((status) => Type.Literal(status)))),
    kind: Type.Optional(
      characterString({
        minLength: 1,
        maxLength: MAX_KIND_LENGTH,
        [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.kind,
      }),
    ),
    queue: Type.Optional(
      Type.String({ pattern: QUEUE_NAME_PATTERN, [EXPECTED_KEYWORD]: QUEUE_NAME_EXPECTED }),
    ),
    limit: Type.Optional(
      Type.String({
        pattern: `^(?:[1-9]|[1-9][0-9]|100)$`,
        [EXPECTED_KEYWORD]: `a whole number from 1 to ${MAX_LIST_LIMIT}`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({ pattern: `^${ID}$`, [EXPECTED_KEYWORD]: 'the nextCursor of the previous page' }),
    ),
    ids: Type.Optional(
      Type.String({
        pattern: `^${ID}(?:,${ID}){0,${MAX_LIST_LIMIT - 1}}$`,
        [EXPECTED_KEYWORD]: `1 to ${MAX_LIST_LIMIT} job ids separated by commas, such as 4,8,15`,
      }),
    ),
  },
  { additionalProperties: false },
);

type ListJobsQueryString = Static<typeof listJobsQuerySchema>;

const listAnswerSchema = Type.Object({
  jobs: Type.Array(jobViewSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `cursor` for the next page; null on the last page and for an ids read.',
  }),
});

/**
 * `GET /jobs`: jobs newest first, at most `limit` (default 50, at most 100), filtered by `status`,
 * `kind` and `queue`, paged with `cursor` (keyset on the id, so pages stay stable while jobs are added);
 * or `GET /jobs?ids=4,8,15`: those jobs in one read (unknown ids are left out), for clients that
 * watch many jobs at once. `ids` combined with another parameter answers `400 INVALID_REQUEST`.
 */
export const jobListRoute: FastifyPluginAsyncTypebox<{ store: Store }> = async (app, { store }) => {
  app.get(
    '/jobs',
    {
      schema: {
        querystring: listJobsQuerySchema,
        response: { 200: listAnswerSchema, '4xx': errorBodySchema, '5xx': errorBodySchema },
      },
    },
    async (request) => {
      const query: ListJobsQueryString = request.query;
      if (query.ids !== undefined) {
        const others = Object.keys(query).filter((key) => key !== 'ids');
        if (others.length > 0) {
          throw new NudgeError(
            'INVALID_REQUEST',
            `querystring/ids cannot be combined with ${others.join(', ')}: read ids alone, or page with filters`,
          );
        }
        const ids = [...new Set(query.ids.split(',').map(Number))];
        const jobs = await store.listJobs({ ids, limit: MAX_LIST_LIMIT });
        return { jobs: jobs.map(toJobView), nextCursor: null };
      }
      const limit = query.limit === undefined ? DEFAULT_LIST_LIMIT : Number(query.limit);
      const jobs = await store.listJobs({
        status: query.status,
        kind: query.kind,
        queue: query.queue,
        beforeId: query.cursor === undefined ? undefined : Number(query.cursor),
        limit,
      });
      const last = jobs.at(-1);
      return {
        jobs: jobs.map(toJobView),
        nextCursor: jobs.length === limit && last ? String(last.id) : null,
      };
    },
  );
};
