import { isDeduped, type EnqueueRow } from '@nudge/core/enqueue-sql';
import type { CompleteInput, FollowUpInput } from './store.js';

/**
 * A completion batch split for its throttled and debounced follow-ups, which take the dedupe
 * statements of `@nudge/core` instead of the completion's own insert: `plain`, the batch with
 * those follow-ups taken out; `deduped`, each parent id's such follow-ups as enqueue rows (the
 * payload parsed back from its JSON text), in order.
 */
export interface SplitFollowUps {
  readonly plain: readonly CompleteInput[];
  readonly deduped: ReadonlyMap<number, readonly EnqueueRow[]>;
}

/** A follow-up as the enqueue SQL takes it: its options, and its payload as a value. */
export function followUpRow(followUp: FollowUpInput): EnqueueRow {
  const { payloadJson, ...options } = followUp;
  return payloadJson === undefined ? options : { ...options, payload: JSON.parse(payloadJson) as unknown };
}

/** Whether any follow-up of the batch is throttled or debounced. */
export function hasDedupedFollowUps(items: readonly CompleteInput[]): boolean {
  return items.some((item) => item.followUps?.some(isDeduped) === true);
}

/** Splits `items` (see {@link SplitFollowUps}). */
export function splitDedupedFollowUps(items: readonly CompleteInput[]): SplitFollowUps {
  const deduped = new Map<number, EnqueueRow[]>();
  const plain = items.map((item) => {
    const mine = item.followUps?.filter(isDeduped) ?? [];
    if (mine.length === 0) return item;
    deduped.set(item.id, mine.map(followUpRow));
    return { ...item, followUps: item.followUps?.filter((f) => !isDeduped(f)) };
  });
  return { plain, deduped };
}
