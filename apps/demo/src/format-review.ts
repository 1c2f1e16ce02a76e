import { basename } from 'node:path';
import type { StepView } from '@nudge/client';
import { formatColumns, type TableLine } from './format-columns.js';
import type { ReviewRun } from './review-flow.js';
import { REVIEW_STEPS, type ReviewResult } from './review-report.js';

const count = (n: number): string => n.toLocaleString('en-US');
const ms = (n: number | undefined): string =>
  n === undefined || !Number.isFinite(n) ? 'n/a' : `${count(Math.round(n))} ms`;
const seconds = (n: number): string => `${count(Math.round(n / 1000))} s`;
const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
const minutes = (n: number): string => `${Number.isInteger(n) ? n : n.toFixed(1)} min`;

/** ms from `from` to `to`, two ISO times of the database clock; `undefined` when either is missing. */
function between(from: string | null | undefined, to: string | null | undefined): number | undefined {
  if (!from || !to) return undefined;
  const span = Date.parse(to) - Date.parse(from);
  return Number.isNaN(span) ? undefined : span;
}

/**
 * The demo's durable flow in its printout, as aligned lines: each step, sleep and wait of the
 * `reviewReport` job with what it took (from `GET /jobs/:id`'s steps, database clock), what the
 * job waited for, and the signal the producer sent. A sleep ran until the next step began, so
 * its line gives how long after it began the job ran again (the sleep plus the claim); the same
 * for the wait, from its start to the `archive` step's.
 */
export function formatReview(run: ReviewRun): string[] {
  const { view } = run;
  const steps = new Map<string, StepView>((view.steps ?? []).map((step) => [step.name, step]));
  const compute = steps.get(REVIEW_STEPS.compute);
  const coolOff = steps.get(REVIEW_STEPS.coolOff);
  const approve = steps.get(REVIEW_STEPS.approve);
  const archive = steps.get(REVIEW_STEPS.archive);
  const result = view.status === 'SUCCEEDED' ? (view.result as unknown as ReviewResult) : undefined;
  const summary = result?.summary;
  const lines: TableLine[] = [
    `Durable flow: ${view.kind} job ${view.id}, ${view.status.toLowerCase()} (${view.attempts} attempt(s) charged: ` +
      'the sleep and the wait end an attempt without charging it)',
  ];
  if (compute) {
    lines.push([
      compute.name,
      'step',
      ms(compute.durationMs ?? undefined),
      summary
        ? `${count(summary.total.flights)} flights: mean ${minutes(summary.total.meanDelayMinutes)}, ` +
          `p95 ${minutes(summary.total.p95DelayMinutes)}, ${percent(summary.total.delayedShare)} delayed > 15 min; ` +
          `worst month ${summary.worstMonth.month}`
        : compute.status,
    ]);
  }
  if (coolOff) {
    lines.push([
      coolOff.name,
      'sleep',
      ms(between(coolOff.startedAt, coolOff.wakeAt)),
      `SCHEDULED, its slot free; ran again ${ms(between(coolOff.startedAt, approve?.startedAt))} after the sleep began`,
    ]);
  }
  if (approve) {
    const deadline = between(approve.startedAt, approve.wakeAt);
    const waited = `WAITING for signal "${approve.name}"${deadline === undefined ? '' : ` (deadline ${seconds(deadline)})`}, its slot free`;
    lines.push([
      approve.name,
      'signal',
      ms(between(approve.startedAt, archive?.startedAt)),
      run.approval === null
        ? `${waited}; no approval came (${approve.status})`
        : `${waited}; the producer sent ${JSON.stringify(run.approval)} inside its own transaction`,
    ]);
  }
  if (archive) {
    const file = result?.archive;
    lines.push([
      archive.name,
      'step',
      ms(archive.durationMs ?? undefined),
      file ? `${basename(file.path)}, ${(file.gzipBytes / 1000).toFixed(1)} kB gzip` : archive.status,
    ]);
  }
  return formatColumns(lines);
}
