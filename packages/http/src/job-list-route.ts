import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import {
  JOB_FIELD_EXPECTED,
  JOB_STATUSES,
  MAX_CONCURRENCY_KEY_LENGTH,
  MAX_KIND_LENGTH,
  NudgeError,
  QUEUE_NAME_PATTERN,
} from '@nudge/core';
import { characterString } from './character-string.js';
import type { Store } from '@nudge/store';
import { QUEUE_NAME_EXPECTED } from './create-job-body.js';
import { EXPECTED_KEYWORD } from './describe-value-error.js';
import { errorBodySchema } from './error-body.js';
import {
  CAPPED_READ_CHUNK,
  MAX_LIST_RESPONSE_BYTES,
  readCappedJobPage,
  type JobChunk,
} from './capped-job-page.js';
import { OPTIONAL_JOB_FIELDS, parseJobListFields } from './job-list-fields.js';
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
    concurrencyKey: Type.Optional(
      characterString({
        minLength: 1,
        maxLength: MAX_CONCURRENCY_KEY_LENGTH,
        [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.concurrencyKey,
        description: 'Only jobs enqueued with this concurrencyKey.',
      }),
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
    fields: Type.Optional(
      Type.String({
        maxLength: 100,
        description: `Fields each listed job leaves out unless named here, separated by commas: ${OPTIONAL_JOB_FIELDS.join(', ')}.`,
      }),
    ),
  },
  { additionalProperties: false },
);

type ListJobsQueryString = Static<typeof listJobsQuerySchema>;

/** A job as `GET /jobs` lists it: its view, with `payload` and `result` only when asked for. */
export const listedJobSchema = Type.Object(
  {
    ...jobViewSchema.properties,
    payload: Type.Optional(jobViewSchema.properties.payload),
    result: Type.Optional(jobViewSchema.properties.result),
  },
  { additionalProperties: false },
);

const listAnswerSchema = Type.Object({
  jobs: Type.Array(listedJobSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: `Pass as \`cursor\` (with the same parameters) for the next page: set when the page is full, or was cut at ${MAX_LIST_RESPONSE_BYTES} bytes; null when no job follows.`,
  }),
});

type ListAnswer = Static<typeof listAnswerSchema>;

/** Parameters an `ids` read may be combined with. */
const WITH_IDS = new Set(['ids', 'cursor', 'fields']);

/**
 * `GET /jobs`: jobs newest first, at most `limit` (default 50, at most 100), filtered by `status`,
 * `kind`, `queue` and `concurrencyKey`, paged with `cursor` (keyset on the id, so pages stay stable while jobs are
 * added); or `GET /jobs?ids=4,8,15`: those jobs in one read (unknown ids are left out), for
 * clients that watch many jobs at once. `ids` combined with anything but `cursor` and `fields`
 * answers `400 INVALID_REQUEST`.
 *
 * Jobs are listed without `payload` and `result` unless `fields` names them (`fields=payload,result`).
 * An answer stays under {@link MAX_LIST_RESPONSE_BYTES} (4 MiB) of JSON: a page that would pass it
 * ends early with a `nextCursor` (a page always holds its first job, however large).
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
    async (request, reply) => {
      const query: ListJobsQueryString = request.query;
      const fields = parseJobListFields(query.fields);
      const beforeId = query.cursor === undefined ? undefined : Number(query.cursor);
      let read: (before: number | undefined, count: number) => Promise<JobChunk>;
      let limit: number;
      if (query.ids !== undefined) {
        const others = Object.keys(query).filter((key) => !WITH_IDS.has(key));
        if (others.length > 0) {
          throw new NudgeError(
            'INVALID_REQUEST',
            `querystring/ids cannot be combined with ${others.join(', ')}: read ids alone (with cursor or fields), or page with filters`,
          );
        }
        // Newest first, as the store lists them, so a cursor continues below the last one listed.
        const ids = [...new Set(query.ids.split(',').map(Number))].sort((a, b) => b - a);
        limit = ids.length;
        read = async (before, count) => {
          const start = before === undefined ? 0 : ids.findIndex((id) => id < before);
          const chunk = start < 0 ? [] : ids.slice(start, start + count);
          const rows =
            chunk.length === 0 ? [] : await store.listJobs({ ids: chunk, limit: count, columns: fields });
          const last = chunk.at(-1);
          return { rows, next: last !== undefined && last !== ids.at(-1) ? last : undefined };
        };
      } else {
        limit = query.limit === undefined ? DEFAULT_LIST_LIMIT : Number(query.limit);
        read = async (before, count) => {
          const rows = await store.listJobs({
            status: query.status,
            kind: query.kind,
            queue: query.queue,
            concurrencyKey: query.concurrencyKey,
            beforeId: before,
            limit: count,
            columns: fields,
          });
          return { rows, next: rows.length === count ? rows.at(-1)?.id : undefined };
        };
      }
      const page = await readCappedJobPage(
        read,
        (job) => {
          const { payload, result, ...view } = toJobView(job);
          return JSON.stringify({
            ...view,
            ...(fields.payload ? { payload } : {}),
            ...(fields.result ? { result } : {}),
          });
        },
        {
          beforeId,
          limit,
          // Summaries are small: one read; payloads and results may be large: a few rows at a time.
          chunk: fields.payload || fields.result ? CAPPED_READ_CHUNK : limit,
          maxBytes: MAX_LIST_RESPONSE_BYTES,
        },
      );
      // The jobs are JSON already: the answer is written around them, and Fastify sends a string
      // with a JSON content type as it is, without serializing it again.
      const body = `{"jobs":[${page.jobs.join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}}`;
      return reply.type('application/json; charset=utf-8').send(body as unknown as ListAnswer);
    },
  );
};
