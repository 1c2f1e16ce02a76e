/** The kind of a job that builds a delay report; also its key in handlers.ts. */
export const REPORT_KIND = 'flightDelayReport';

/** The kind of a job that writes a report as a gzip file; also its key in handlers.ts. */
export const ARCHIVE_KIND = 'archiveReport';

/** The kind of a job that aggregates one row group of flights-3m into a mergeable partial. */
export const PART_KIND = 'flightDelayPart';

/** The kind of the job that merges the part jobs' partials into one delay report. */
export const MERGE_KIND = 'flightDelayMerge';

/** The kind of the durable review: compute, sleep, wait for approval, archive; also its key in handlers.ts. */
export const REVIEW_KIND = 'reviewReport';
