/** The kind of a job that builds a delay report; also its handler's export name in handlers.ts. */
export const REPORT_KIND = 'flightDelayReport';

/** The kind of a job that writes a report as a gzip file; also its handler's export name. */
export const ARCHIVE_KIND = 'archiveReport';
