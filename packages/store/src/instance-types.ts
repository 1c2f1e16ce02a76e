import type { ExecutionClass } from '@nudge/core';

// The inputs and results of the instance registry's Store methods (see store.ts).

/** A queue an instance serves, as the engine's `queues` option lists it. */
export interface InstanceQueue {
  /** The queue's name, or `'*'` for every queue not listed. */
  readonly name: string;
  /** Most jobs of this queue the instance runs at once; absent: no cap. */
  readonly cap?: number;
}

/** A running service instance, as {@link Store.registerInstance} records it. */
export interface InstanceInput {
  /** Unique per engine; the same string as `claimed_by`. */
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** Kinds this instance has handlers for. */
  readonly kinds: readonly string[];
  /** The nudge version the instance runs. @defaultValue `null` (unknown) */
  readonly version?: string | null;
  /** The queues it serves, with their caps. @defaultValue `[{ name: '*' }]`: every queue */
  readonly queues?: readonly InstanceQueue[];
  /** Its total slots per execution class (classes without kinds left out). @defaultValue `{}` */
  readonly slots?: Partial<Record<ExecutionClass, number>>;
}

/** One row of the instance registry, as {@link Store.listInstances} reads it. */
export interface InstanceInfo {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** The nudge version it runs; `null` when it did not say. */
  readonly version: string | null;
  readonly kinds: string[];
  readonly queues: InstanceQueue[];
  readonly slots: Partial<Record<ExecutionClass, number>>;
  readonly startedAt: Date;
  /** Its latest heartbeat (registration or touch), by the database clock. */
  readonly lastSeenAt: Date;
  /** Seen within the `liveWithinMs` of the query, by the database clock. */
  readonly live: boolean;
}

/** Input of {@link Store.listInstances}. */
export interface ListInstancesInput {
  /** An instance seen within this many ms is `live`. */
  readonly liveWithinMs: number;
  /** Leave out the instances that are not live. @defaultValue false */
  readonly liveOnly?: boolean;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}
