import type { JsonValue } from '@nudge/core';
import type { HandlerContext } from '@nudge/server/handlers';
import { archiveJson, type ArchiveResult } from './archive-json.js';
import { DEFAULT_DATASET, type DatasetName } from './dataset-files.js';
import { ALL_ORIGINS, buildDelayReport, type MonthStats } from './delay-report.js';
import type { DelayStats } from './delay-stats.js';
import { loadAirports, loadFlights } from './flight-data-cache.js';
import { DEFAULT_OUTPUT_DIR } from './payload-schemas.js';

/** The signal a `reviewReport` job waits for: the producer's approval. */
export const APPROVE_SIGNAL = 'approve';

/** The steps, sleep and wait of a `reviewReport` job, by name, in the order it runs them. */
export const REVIEW_STEPS = {
  compute: 'compute',
  coolOff: 'cool-off',
  approve: APPROVE_SIGNAL,
  archive: 'archive',
} as const;

/** How long a review sleeps between computing and asking for approval, in ms. @defaultValue 1000 */
export const DEFAULT_COOL_OFF_MS = 1_000;

/** How long a review waits for its approval, in ms. @defaultValue 60000 (one minute) */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 60_000;

/** A `reviewReport` job's payload once checked by its schema (`reviewPayload`). */
export interface ReviewPayload {
  readonly dataset?: DatasetName;
  readonly origin?: string;
  readonly coolOffMs?: number;
  readonly approvalTimeoutMs?: number;
  readonly outputDir?: string;
}

/** The delay summary a review computes: the slice's figures, its worst month and busiest route. */
export interface DelaySummary {
  readonly dataset: string;
  readonly origin: string;
  readonly total: DelayStats;
  /** The month with the highest share of flights delayed more than 15 min. */
  readonly worstMonth: MonthStats;
  /** The slice's busiest route, `ORD → LGA`. */
  readonly busiestRoute: string;
}

/** What a `reviewReport` job returns. */
export interface ReviewResult {
  readonly summary: DelaySummary;
  /** The approval signal's payload; `null` when none came before the deadline. */
  readonly approval: JsonValue | null;
  /** The archive written once approved; `null` without approval. */
  readonly archive: ArchiveResult | null;
}

/** The file name (without extension) of a review's archive, such as `review-flights-20k-ALL`. */
export function reviewArchiveName(dataset: string, origin: string): string {
  return `review-${dataset}-${origin}`;
}

/** The delay summary of one slice, from the same report a `flightDelayReport` job builds. */
async function computeSummary(dataset: DatasetName, origin: string): Promise<DelaySummary> {
  const [flights, airports] = await Promise.all([loadFlights(dataset), loadAirports()]);
  const report = buildDelayReport(flights, airports, { dataset, origin, topRoutes: 1 });
  const worstMonth = report.months.reduce((worst, month) =>
    month.delayedShare > worst.delayedShare ? month : worst,
  );
  const route = report.topRoutes[0];
  return {
    dataset,
    origin,
    total: report.total,
    worstMonth,
    busiestRoute: route ? `${route.origin} → ${route.destination}` : '-',
  };
}

/**
 * A durable review of a delay report, as four durable calls: the step `compute` (the delay
 * summary of one slice), the sleep `cool-off` (the attempt ends and the job is `SCHEDULED`, its
 * slot free), the wait for the signal `approve` (the job `WAITING` with its slot free until the
 * producer's approval or the deadline), then the step `archive` (the summary and the approval,
 * gzipped). Each time the job runs again it starts from the top: `compute` returns its stored
 * summary without computing, the slept sleep returns at once, and the wait returns the signal's
 * payload. Without approval by the deadline nothing is archived.
 * @throws Error when the dataset cannot be read, the slice has no flight, or the archive cannot be written
 */
export async function reviewReport(payload: ReviewPayload, ctx: HandlerContext): Promise<ReviewResult> {
  const dataset = payload.dataset ?? DEFAULT_DATASET;
  const origin = payload.origin ?? ALL_ORIGINS;
  const summary = await ctx.step(REVIEW_STEPS.compute, () => computeSummary(dataset, origin));
  await ctx.sleep(REVIEW_STEPS.coolOff, payload.coolOffMs ?? DEFAULT_COOL_OFF_MS);
  const approval = await ctx.waitForSignal(REVIEW_STEPS.approve, {
    timeoutMs: payload.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
  });
  if (approval === null) return { summary, approval, archive: null };
  const archive = await ctx.step(REVIEW_STEPS.archive, () =>
    archiveJson(
      reviewArchiveName(dataset, origin),
      { summary, approval },
      payload.outputDir ?? DEFAULT_OUTPUT_DIR,
    ),
  );
  return { summary, approval, archive };
}
