import type { JobLogLevel, JobLogLine } from '@nudge/core';
import type { JobLease } from './claim-types.js';

// The inputs and results of job logs (see store.ts).

/**
 * Lines of one attempt to append to its job's log ({@link Store.appendJobLogs}), in the order
 * they were written. Fenced by `(id, version)`: lines of an attempt whose job has moved on to a
 * newer version (a lost lease, a cancel, a later claim) are refused. An attempt's own outcome
 * does not move the version, so its lines still land if they come just after it.
 */
export interface JobLogAppend extends JobLease {
  /** The attempt's number, from 1. */
  readonly attempt: number;
  /** The lines, each already fitted (`fitJobLogLine` of `@nudge/core`); may be empty. */
  readonly lines: readonly JobLogLine[];
  /** Lines the attempt dropped before they reached the store (over a cap on its thread), counted as dropped. */
  readonly dropped?: number;
}

/** The caps of one job's stored log, across all its attempts. */
export interface JobLogCaps {
  /** Most lines stored per job (1 or more). */
  readonly linesPerJob: number;
  /** Most bytes stored per job: the UTF-8 bytes of the messages and fields' JSON (1 or more). */
  readonly bytesPerJob: number;
}

/** What an append did for one attempt: lines stored and lines dropped over the caps. */
export interface JobLogAppended extends JobLease {
  readonly stored: number;
  readonly dropped: number;
}

/** One stored line of a job's log. */
export interface StoredJobLogLine {
  /** Position in the job's log, from 1, across its attempts. */
  readonly seq: number;
  readonly attempt: number;
  readonly level: JobLogLevel;
  readonly message: string;
  /** JSON text of an object, or `null`. */
  readonly fieldsJson: string | null;
  /** When it was stored, by the database clock. */
  readonly at: Date;
}

/** A page of a job's log ({@link Store.readJobLogs}). */
export interface JobLogPage {
  /** Lines with `seq` over the query's `after`, oldest first, at most its `limit`. */
  readonly lines: readonly StoredJobLogLine[];
  /** Lines stored for the job (all pages). */
  readonly storedLines: number;
  /** Bytes stored for the job. */
  readonly storedBytes: number;
  /** Lines dropped over the caps. */
  readonly dropped: number;
}

/** Which page of a job's log to read. */
export interface JobLogQuery {
  readonly jobId: number;
  /** Lines after this `seq`; 0 for the first page. */
  readonly after: number;
  /** Most lines returned (1 to 1000). */
  readonly limit: number;
}
