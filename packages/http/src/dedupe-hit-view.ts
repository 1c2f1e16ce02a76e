import { Type, type Static } from '@sinclair/typebox';
import { JOB_STATUSES, type Job } from '@nudge/core';

/**
 * What an enqueue answers about a job it did not create (its idempotency key, throttle window or
 * debounce key met an existing job) to a caller whose key lacks `read`: the job's id and status
 * only. The job may be another producer's, and enqueueing must not be a way to read it.
 */
export const dedupeHitViewSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    status: Type.Union(JOB_STATUSES.map((status) => Type.Literal(status))),
    created: Type.Literal(false, { description: 'The job existed: this request created nothing.' }),
  },
  {
    additionalProperties: false,
    description:
      'A job the request did not create, as a key without the read scope sees it: id and status only.',
  },
);

/** The static type of {@link dedupeHitViewSchema}. */
export type DedupeHitView = Static<typeof dedupeHitViewSchema>;

/** The {@link DedupeHitView} of `job`. */
export function toDedupeHitView(job: Job): DedupeHitView {
  return { id: job.id, status: job.status, created: false };
}
