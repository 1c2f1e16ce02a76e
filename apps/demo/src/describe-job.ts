import { MERGE_KIND, PART_KIND, REPORT_KIND, REVIEW_KIND } from './job-kinds.js';
import type { JobView } from '@nudge/client';

function subject(view: JobView): string {
  const payload = view.payload as { origin?: unknown; name?: unknown; rowGroup?: unknown } | null;
  switch (view.kind) {
    case REPORT_KIND:
      return String(payload?.origin);
    case PART_KIND:
      return `row group ${String(payload?.rowGroup)}`;
    case MERGE_KIND:
      return 'all parts';
    case REVIEW_KIND:
      return `review of ${typeof payload?.origin === 'string' ? payload.origin : 'ALL'}`;
    default:
      return String(payload?.name);
  }
}

/**
 * One line about a job that did not succeed, for the producer's exit message, e.g.
 * `job 7 (flightDelayPart row group 3) FAILED after 3 attempt(s): cannot read …`.
 */
export function describeJob(view: JobView): string {
  return `job ${view.id} (${view.kind} ${subject(view)}) ${view.status} after ${view.attempts} attempt(s): ${
    view.lastError ?? 'no error recorded'
  }`;
}
