import { Type, type Static } from '@sinclair/typebox';
import type { InstanceInfo } from '@nudge/store';

/** A service instance as the API shows it. */
export const instanceViewSchema = Type.Object(
  {
    id: Type.String({ description: 'The instance id, the same string as a job’s claimedBy.' }),
    host: Type.String(),
    pid: Type.Integer(),
    version: Type.Union([Type.String(), Type.Null()], { description: 'The nudge version it runs.' }),
    kinds: Type.Array(Type.String(), { description: 'Kinds it has handlers for.' }),
    queues: Type.Array(
      Type.Object(
        {
          name: Type.String({ description: "A queue name, or '*' for every queue not listed." }),
          cap: Type.Optional(Type.Integer({ description: 'Most of its jobs the instance runs at once.' })),
        },
        { additionalProperties: false },
      ),
      { description: 'The queues it serves, with their caps.' },
    ),
    slots: Type.Object(
      { cpu: Type.Optional(Type.Integer()), async: Type.Optional(Type.Integer()) },
      { additionalProperties: false, description: 'Total slots per execution class.' },
    ),
    startedAt: Type.String({ format: 'date-time' }),
    lastSeenAt: Type.String({ format: 'date-time', description: 'Its latest heartbeat.' }),
    live: Type.Boolean({ description: 'Seen within two leases (database clock).' }),
  },
  { additionalProperties: false },
);

/** The static type of {@link instanceViewSchema}. */
export type InstanceView = Static<typeof instanceViewSchema>;

/** An {@link InstanceInfo} as JSON: times as ISO text. */
export const toInstanceView = (instance: InstanceInfo): InstanceView => ({
  ...instance,
  startedAt: instance.startedAt.toISOString(),
  lastSeenAt: instance.lastSeenAt.toISOString(),
});
