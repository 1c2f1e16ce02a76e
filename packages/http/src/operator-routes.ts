import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { JOB_STATUSES } from '@nudge/core';
import type { ScheduleState, Store, StoreStats } from '@nudge/store';
import { errorBodySchema } from './error-body.js';
import { instanceViewSchema, toInstanceView } from './instance-view.js';

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
    byKind: Type.Record(Type.String(), statusCountsSchema),
    byQueue: Type.Record(Type.String(), statusCountsSchema),
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
  },
  { additionalProperties: false },
);

/** The static type of {@link statsViewSchema}. */
export type StatsView = Static<typeof statsViewSchema>;

/** {@link StoreStats} as JSON: times as ISO text. */
export const toStatsView = (stats: StoreStats): StatsView => ({
  ...stats,
  at: stats.at.toISOString(),
  instances: stats.instances.map(toInstanceView),
});

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
 * - `GET /stats`: {@link Store.stats}: counts by status, kind and queue, the oldest pending age,
 *   the last hour's failure rate and the live instances. It reads the whole jobs table: poll it
 *   every few seconds at most.
 * - `GET /schedules`: every recurring schedule an instance has registered, by name, with its
 *   last and next tick.
 */
export const operatorRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  instanceLiveWithinMs: number;
}> = async (app, { store, instanceLiveWithinMs }) => {
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
  app.get('/stats', { schema: { response: { 200: statsViewSchema, ...errors } } }, async () =>
    toStatsView(await store.stats({ instanceLiveWithinMs })),
  );
};
