import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { JOB_STATUSES } from '@nudge/core';
import {
  compareCodePoints,
  type NamePage,
  type ScheduleState,
  type Store,
  type StoreStats,
} from '@nudge/store';
import { errorBodySchema } from './error-body.js';
import { instanceViewSchema, toInstanceView } from './instance-view.js';
import { namePageLimit, namePageLimitSchema } from './name-page-query.js';
import { decodeStatsCursor, encodeStatsCursor, FIRST_STATS_PAGE } from './stats-cursor.js';
import { StatsSnapshots } from './stats-snapshot.js';

const statusCountsSchema = Type.Object(
  Object.fromEntries(JOB_STATUSES.map((status) => [status, Type.Integer()])) as Record<
    (typeof JOB_STATUSES)[number],
    ReturnType<typeof Type.Integer>
  >,
  { additionalProperties: false },
);

/** The body of `GET /stats`: {@link StoreStats} as JSON. */
export const statsViewSchema = Type.Object(
  {
    at: Type.String({ format: 'date-time', description: 'The database’s now when read.' }),
    byStatus: statusCountsSchema,
    byKind: Type.Record(Type.String(), statusCountsSchema, {
      description: 'A page of kinds (`limit` of them, by name) with their counts.',
    }),
    byQueue: Type.Record(Type.String(), statusCountsSchema, {
      description: 'A page of queues (`limit` of them, by name) with their counts.',
    }),
    oldestPendingAgeMs: Type.Union([Type.Integer(), Type.Null()], {
      description: 'How long the earliest due PENDING job has waited, in ms; null when none.',
    }),
    lastHour: Type.Object(
      { succeeded: Type.Integer(), failed: Type.Integer() },
      { additionalProperties: false },
    ),
    failureRateLastHour: Type.Union([Type.Number(), Type.Null()], {
      description: 'failed / (succeeded + failed) over the last hour, 0 to 1; null when both are 0.',
    }),
    instances: Type.Array(instanceViewSchema, { description: 'Live instances.' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description:
        'Pass as `cursor` for the next kinds and queues (the totals come again); null when neither list has more.',
    }),
  },
  { additionalProperties: false },
);

/** Query of `GET /stats`: the page of kinds and queues. */
export const statsQuerySchema = Type.Object(
  {
    limit: namePageLimitSchema(
      0,
      'Kinds in byKind and queues in byQueue per page, each; 0 answers the totals alone.',
    ),
    cursor: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'The nextCursor of the previous page.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The static type of {@link statsViewSchema}. */
export type StatsView = Static<typeof statsViewSchema>;

/** {@link StoreStats} as JSON (times as ISO text), with the cursor of the next page, if any. */
export const toStatsView = (stats: StoreStats, nextCursor: string | null = null): StatsView => ({
  ...stats,
  at: stats.at.toISOString(),
  instances: stats.instances.map(toInstanceView),
  nextCursor,
});

/**
 * The page of names after `after` (`null`: the list is done, so none), and where the next starts
 * given the names read: after the last, or `null` once a page comes back short.
 */
function namePage(after: string | null | undefined, limit: number) {
  const page: NamePage = after === null ? { limit: 0 } : { limit, ...(after !== undefined && { after }) };
  const next = (names: string[]): string | null =>
    page.limit === 0 || names.length < page.limit ? null : (names.sort(compareCodePoints).at(-1) ?? null);
  return { page, next };
}

/** One recurring schedule in `GET /schedules`. */
export const scheduleViewSchema = Type.Object(
  {
    name: Type.String(),
    cron: Type.String({ description: 'The cron expression, read in `timezone`.' }),
    timezone: Type.String(),
    kind: Type.String(),
    lastTickAt: Type.String({
      format: 'date-time',
      description:
        'The latest tick whose job was enqueued (for a new schedule: when it was first registered).',
    }),
    nextTickAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

/** {@link ScheduleState} as JSON: times as ISO text. */
export const toScheduleView = (s: ScheduleState): Static<typeof scheduleViewSchema> => ({
  ...s,
  lastTickAt: s.lastTickAt.toISOString(),
  nextTickAt: s.nextTickAt?.toISOString() ?? null,
  updatedAt: s.updatedAt.toISOString(),
});

const errors = { '4xx': errorBodySchema, '5xx': errorBodySchema };

/**
 * What operators look at.
 *
 * - `GET /instances`: every row of the instance registry, by id, each with `live` (seen within
 *   `instanceLiveWithinMs`). A dead instance's row stays listed, `live: false`, until a live
 *   instance deletes it (10 leases after its last heartbeat).
 * - `GET /stats`: {@link Store.stats}: counts by status, the oldest pending age, the last hour's
 *   failure rate, the live instances, and a page of the counts by kind and by queue (`limit` of
 *   each, default 100, at most 500, `0` for none; `cursor` for the next). Counting reads the
 *   whole jobs table; once a count takes 100 ms or more, pages come from one whole count for up to
 *   ten times its counting time (see {@link StatsSnapshots}), and `at` says when it was read.
 * - `GET /schedules`: every recurring schedule an instance has registered, by name, with its
 *   last and next tick.
 */
export const operatorRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  instanceLiveWithinMs: number;
}> = async (app, { store, instanceLiveWithinMs }) => {
  const snapshots = new StatsSnapshots(store, instanceLiveWithinMs);
  app.get(
    '/instances',
    {
      schema: { response: { 200: Type.Object({ instances: Type.Array(instanceViewSchema) }), ...errors } },
    },
    async () => ({
      instances: (await store.listInstances({ liveWithinMs: instanceLiveWithinMs })).map(toInstanceView),
    }),
  );
  app.get(
    '/schedules',
    {
      schema: { response: { 200: Type.Object({ schedules: Type.Array(scheduleViewSchema) }), ...errors } },
    },
    async () => ({ schedules: (await store.listSchedules()).map(toScheduleView) }),
  );
  app.get(
    '/stats',
    { schema: { querystring: statsQuerySchema, response: { 200: statsViewSchema, ...errors } } },
    async (request) => {
      const limit = namePageLimit(request.query.limit);
      const cursor =
        request.query.cursor === undefined ? FIRST_STATS_PAGE : decodeStatsCursor(request.query.cursor);
      const kinds = namePage(cursor.kind, limit);
      const queues = namePage(cursor.queue, limit);
      const stats = await snapshots.page(kinds.page, queues.page);
      const next = encodeStatsCursor(
        kinds.next(Object.keys(stats.byKind)),
        queues.next(Object.keys(stats.byQueue)),
      );
      return toStatsView(stats, next);
    },
  );
};
