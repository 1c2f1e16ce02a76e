import type { Job } from '@nudge/core';

/**
 * Largest `GET /jobs` answer, in bytes of JSON: a page that would pass it ends early, with a
 * `nextCursor`. A page holds at least one job, so a single job larger than this is still listed.
 */
export const MAX_LIST_RESPONSE_BYTES = 4 * 1_048_576;

/** Rows read per store call while a page holds payloads or results, so few are read past the cap. */
export const CAPPED_READ_CHUNK = 10;

/** A page of jobs, already as JSON texts. */
export interface CappedJobPage {
  /** Each job's JSON, newest first. */
  readonly jobs: readonly string[];
  /** The cursor of the next page: the last listed id when jobs may follow, else `null`. */
  readonly nextCursor: string | null;
}

/** One read of {@link readCappedJobPage}: rows newest first, and where the next read starts. */
export interface JobChunk {
  readonly rows: readonly Job[];
  /** The id the next read lists below; `undefined` when no job follows. */
  readonly next: number | undefined;
}

/**
 * Reads up to `limit` jobs through `read` (at most `count` jobs below an id, newest first) in
 * chunks of `chunk`, and stops at `limit` jobs, when no job follows, or before the job whose
 * JSON would make the answer pass `maxBytes` (the first job is always kept).
 *
 * @param toJson - a job's JSON as the answer holds it
 */
export async function readCappedJobPage(
  read: (beforeId: number | undefined, count: number) => Promise<JobChunk>,
  toJson: (job: Job) => string,
  options: { beforeId: number | undefined; limit: number; chunk: number; maxBytes: number },
): Promise<CappedJobPage> {
  const jobs: string[] = [];
  let bytes = 0;
  let lastId: number | undefined;
  let beforeId = options.beforeId;
  for (;;) {
    const { rows, next } = await read(beforeId, Math.min(options.chunk, options.limit - jobs.length));
    for (const row of rows) {
      const json = toJson(row);
      const size = Buffer.byteLength(json) + 1;
      if (jobs.length > 0 && bytes + size > options.maxBytes) return { jobs, nextCursor: String(lastId) };
      jobs.push(json);
      bytes += size;
      lastId = row.id;
    }
    if (next === undefined) return { jobs, nextCursor: null };
    if (jobs.length === options.limit) return { jobs, nextCursor: String(lastId) };
    beforeId = next;
  }
}
