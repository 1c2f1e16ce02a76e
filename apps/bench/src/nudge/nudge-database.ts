import type { BenchPayload } from '../bench-job.js';

/** Ids of a run of inserted rows, first and last included. */
export interface IdRange {
  readonly first: number;
  readonly last: number;
}

/**
 * The bench's own connection to nudge's table, for what a producer does in SQL: insert jobs with
 * a plain `INSERT` (the outbox way) and check that they finished. One implementation per dialect.
 */
export interface NudgeDatabase {
  /**
   * Inserts one `PENDING` job per payload, all of kind `kind`, in one `INSERT` statement (one
   * transaction); resolves once it has committed.
   */
  insertJobs(kind: string, payloads: readonly BenchPayload[]): Promise<IdRange>;
  /** Rows with an id in `range` whose status is `SUCCEEDED`: one primary-key range scan. */
  countSucceeded(range: IdRange): Promise<number>;
  close(): Promise<void>;
}
