import { NudgeError } from '@nudge/core';

/** The existing job a keyed enqueue met: enough to tell whether the repeat asks for the same. */
export interface KeyedJob {
  readonly id: number | string | bigint;
  readonly kind: string;
  readonly idempotencyKey: string | null;
  /** Its dependency ids, without repeats. */
  readonly dependsOn: readonly number[];
}

/**
 * Why a repeat of a keyed job (same kind and idempotency key) cannot be answered with the
 * existing job: it asks for other dependencies (`asked`, resolved ids without repeats, in any
 * order) than the job has. Answering with it anyway would drop the `dependsOn` sent without a
 * word; other fields of a repeat are not compared (the key names the job, whatever else is sent).
 *
 * @param pointer - the job's JSON Pointer in a batch (`/jobs/3`), `''` for a single job
 * @returns `IDEMPOTENCY_KEY_CONFLICT` naming both lists, or `undefined` when they match
 */
export function keyedRepeatConflict(
  pointer: string,
  existing: KeyedJob,
  asked: readonly number[],
): NudgeError | undefined {
  const stored = new Set(existing.dependsOn);
  if (stored.size === asked.length && asked.every((id) => stored.has(id))) return undefined;
  const list = (ids: readonly number[]) => (ids.length === 0 ? 'none' : `[${ids.join(', ')}]`);
  return new NudgeError(
    'IDEMPOTENCY_KEY_CONFLICT',
    `${pointer}/dependsOn: job ${String(existing.id)} of kind ${existing.kind} has idempotency key ${JSON.stringify(existing.idempotencyKey)} and depends on ${list(existing.dependsOn)}, not ${list(asked)}: send the dependsOn it was created with to get it back, or use another idempotency key`,
  );
}
