import type { BenchPayload } from '../bench-job.js';

/** Ids of a run of inserted rows, first and last included. */
export interface IdRange {
  readonly first: number;
  readonly last: number;
}

/**
 * The bench's own connection to nudge's table, for what a producer does: insert jobs with a plain
 * `INSERT` (the outbox way from any language) or through the client SDK, and check that they
 * finished. One implementation per dialect.
 */
export interface NudgeDatabase {
  /**
   * Inserts one `PENDING` job per payload, all of kind `kind`, in one `INSERT` statement (one
   * transaction); resolves once it has committed.
   */
  insertJobs(kind: string, payloads: readonly BenchPayload[]): Promise<IdRange>;
  /**
   * Enqueues one job per payload through `@nudge/client`'s `enqueueMany`, as a Node producer
   * would (validated, multi-row `INSERT`s in one transaction); resolves once it has committed.
   */
  enqueueJobs(kind: string, payloads: readonly BenchPayload[]): Promise<IdRange>;
  /** Rows with an id in `range` whose status is `SUCCEEDED`: one primary-key range scan. */
  countSucceeded(range: IdRange): Promise<number>;
  close(): Promise<void>;
}

/** The range of the ids `enqueueMany` returned. */
export function idRangeOf(results: ReadonlyArray<{ id: number }>): IdRange {
  if (results.length === 0) throw new Error('enqueueMany returned no job');
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const { id } of results) {
    if (id < first) first = id;
    if (id > last) last = id;
  }
  return { first, last };
}
