import type pg from 'pg';
import { pgTransaction } from './pg-transaction.js';
import { enqueuePlan, type ReturnedRow } from '../sql/index.js';
import { splitPlannedFollowUps } from '../planned-follow-ups.js';
import type { CompleteInput, JobLease } from '../store.js';

/**
 * A completion batch with follow-ups that take the enqueue plan (throttled, debounced or with
 * dependencies), in one transaction: the completion statement with the other follow-ups
 * (`complete`), then, for each completion it recorded, that job's follow-ups through
 * the enqueue plan (`sql/enqueue-plan.ts`), as one batch. A window or a waiting job found enqueues nothing, as
 * for any producer; a dependency id that names no job counts as one that did not succeed
 * (`'unmet'`). A fenced-out completion enqueues nothing.
 */
export async function pgCompletePlanned(
  pool: pg.Pool,
  items: readonly CompleteInput[],
  now: Date | undefined,
  complete: (client: pg.ClientBase, items: readonly CompleteInput[], now?: Date) => Promise<JobLease[]>,
): Promise<JobLease[]> {
  const { plain, planned } = splitPlannedFollowUps(items);
  return pgTransaction(pool, async (client) => {
    const written = await complete(client, plain, now);
    for (const { id } of written) {
      const rows = planned.get(Number(id));
      if (rows === undefined) continue;
      const plan = enqueuePlan<ReturnedRow>('postgres', rows, 'keys', 'unmet');
      let step = plan.next();
      while (!step.done)
        step = plan.next((await client.query<ReturnedRow>(step.value.sql, [...step.value.params])).rows);
    }
    return written;
  });
}
