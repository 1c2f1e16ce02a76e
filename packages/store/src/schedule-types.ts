/** A recurring schedule as the store records it (see {@link Store.registerSchedules}). */
export interface ScheduleState {
  /** Unique, stable name; part of each tick's idempotency key. */
  readonly name: string;
  /** The cron expression. */
  readonly cron: string;
  /** IANA time zone the expression is read in. */
  readonly timezone: string;
  readonly kind: string;
  /** The latest tick whose job was enqueued (or, for a new schedule, when it was first registered). */
  readonly lastTickAt: Date;
  /** The next tick after `lastTickAt`, as the last instance to write the row computed it. */
  readonly nextTickAt: Date | null;
  readonly updatedAt: Date;
}

/** What {@link Store.registerSchedules} records of a declared schedule. */
export interface ScheduleRegistration {
  readonly name: string;
  readonly cron: string;
  readonly timezone: string;
  readonly kind: string;
}

/** Input of {@link Store.advanceSchedule}. */
export interface ScheduleAdvance {
  readonly name: string;
  /** The tick just handled; the row keeps the later of this and its own. */
  readonly tickAt: Date;
  /** The tick after it. */
  readonly nextTickAt: Date | null;
}
