import { takesSteps, type EnqueueRow } from './sql/index.js';
import type { CompleteInput, FollowUpInput } from './store.js';

/**
 * A completion batch split for the follow-ups that take the enqueue plan (`sql/enqueue-plan.ts`) instead of
 * the completion's own insert: `plain`, the batch without them; `planned`, each parent id's
 * follow-ups as enqueue rows (the payload parsed back from its JSON text), in the order the
 * handler enqueued them.
 */
export interface SplitFollowUps {
  readonly plain: readonly CompleteInput[];
  readonly planned: ReadonlyMap<number, readonly EnqueueRow[]>;
}

/** A follow-up as the enqueue SQL takes it: its options, and its payload as a value. */
export function followUpRow(followUp: FollowUpInput): EnqueueRow {
  const { payloadJson, ...options } = followUp;
  return payloadJson === undefined ? options : { ...options, payload: JSON.parse(payloadJson) as unknown };
}

/**
 * Whether `followUp` takes the enqueue plan: it is throttled, debounced or has dependencies (the
 * enqueue's own test, `takesSteps`).
 */
const isPlanned = (followUp: FollowUpInput): boolean => takesSteps(followUp);

/** Whether any follow-up of the batch takes the enqueue plan (see {@link splitPlannedFollowUps}). */
export function hasPlannedFollowUps(items: readonly CompleteInput[]): boolean {
  return items.some((item) => item.followUps?.some(isPlanned) === true);
}

/**
 * Splits `items` (see {@link SplitFollowUps}). When one follow-up of a parent is throttled,
 * debounced or has dependencies, all of that parent's follow-ups take the plan, as one batch: a
 * `dependsOn` entry `{ index: n }` names the parent's n-th follow-up.
 */
export function splitPlannedFollowUps(items: readonly CompleteInput[]): SplitFollowUps {
  const planned = new Map<number, EnqueueRow[]>();
  const plain = items.map((item) => {
    const followUps = item.followUps ?? [];
    if (!followUps.some(isPlanned)) return item;
    planned.set(item.id, followUps.map(followUpRow));
    const { followUps: _all, ...rest } = item;
    return rest;
  });
  return { plain, planned };
}
