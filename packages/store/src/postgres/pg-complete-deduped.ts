import type pg from 'pg';
import { enqueuePlan, type ReturnedRow } from '@nudge/core/enqueue-sql';
import { splitDedupedFollowUps } from '../deduped-follow-ups.js';
import type { CompleteInput, JobLease } from '../store.js';

/**
 * A completion batch with throttled or debounced follow-ups, in one transaction: the completion
 * statement with the other follow-ups (`complete`), then, for each completion it recorded, that
 * job's throttled and debounced follow-ups through `@nudge/core`'s enqueue plan (a window or a
 * waiting job found is enqueued nothing, as for any producer). A fenced-out completion enqueues
 * nothing.
 */
export async function pgCompleteDeduped(
  pool: pg.Pool,
  items: readonly CompleteInput[],
  now: Date | undefined,
  complete: (client: pg.ClientBase, items: readonly CompleteInput[], now?: Date) => Promise<JobLease[]>,
): Promise<JobLease[]> {
  const { plain, deduped } = splitDedupedFollowUps(items);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const written = await complete(client, plain, now);
    for (const { id } of written) {
      const rows = deduped.get(Number(id));
      if (rows === undefined) continue;
      const plan = enqueuePlan<ReturnedRow>('postgres', rows, 'keys');
      let step = plan.next();
      while (!step.done)
        step = plan.next((await client.query<ReturnedRow>(step.value.sql, [...step.value.params])).rows);
    }
    await client.query('COMMIT');
    return written;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
