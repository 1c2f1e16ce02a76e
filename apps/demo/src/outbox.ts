/** A job for the outbox: a plain `INSERT INTO nudge_jobs (kind, payload)` row. */
export interface NewJob {
  /** Handler name, e.g. `flightDelayReport`. */
  readonly kind: string;
  /** Any JSON value. */
  readonly payload: unknown;
}

/**
 * The producer's side of the outbox pattern: inserts PENDING jobs straight into `nudge_jobs` in
 * one transaction of its own (as a producer would alongside its own writes), with no nudge code
 * involved. The rows are durable once this resolves; a nudge only makes them start sooner.
 */
export interface Outbox {
  /**
   * Inserts every job in one transaction; all or none are committed.
   * @returns the new jobs' ids, in the order given
   * @throws Error when the table does not exist (the server migrates it) or the insert fails
   */
  insertJobs(jobs: readonly NewJob[]): Promise<number[]>;
  /** Closes the connection. */
  close(): Promise<void>;
}

/** The message for a database the server has not migrated yet. */
export function missingTableMessage(where: string): string {
  return `${where} has no nudge_jobs table: start the nudge server on it first (it creates the schema)`;
}
