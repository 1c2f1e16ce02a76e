import type { ArchivePayload } from './archive-payload.js';
import type { MergePayload } from './merge-payload.js';
import type { PartPayload } from './part-payload.js';
import type { ReportPayload } from './report-payload.js';

/**
 * What the producer sends as each kind's payload (the handlers fill in the defaults): the
 * kind → payload map that types `@nudge/client`'s enqueue for the demo's jobs.
 */
export interface DemoPayloads {
  flightDelayReport: Partial<ReportPayload>;
  archiveReport: Pick<ArchivePayload, 'name' | 'report'> & { readonly outputDir?: string };
  flightDelayPart: PartPayload;
  flightDelayMerge: Pick<MergePayload, 'parts' | 'nudgeUrl'> & Partial<MergePayload>;
}
