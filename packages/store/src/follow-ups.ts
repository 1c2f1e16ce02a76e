import { findUnstorableJsonText, jobInputProblem, NudgeError } from '@nudge/core';
import { JOB_COLUMNS } from './sql/index.js';
import type { CompleteInput } from './store.js';

/** The record fields of a follow-up besides its payload, which is spliced in as JSON text. */
const FIELDS = JOB_COLUMNS.filter((c) => c.field !== 'payload');

/** Whether any completion of the batch carries follow-up jobs. */
export function hasFollowUps(items: readonly CompleteInput[]): boolean {
  for (const item of items) if (item.followUps !== undefined && item.followUps.length > 0) return true;
  return false;
}

/**
 * Refuses follow-ups that break the job contract of `@nudge/core` or that the two dialects would
 * not store alike (as `assertStorableInput` does for enqueues), before anything of the batch is
 * written. `payloadJson` must be JSON text as `JSON.stringify` writes it; it is scanned, not parsed.
 * A parent's follow-ups are one batch: a `dependsOn` entry `{ index: n }` names its n-th follow-up,
 * an earlier one.
 * @throws NudgeError `INVALID_REQUEST`, `PAYLOAD_UNSTORABLE` or `PAYLOAD_TOO_DEEP`, naming the job
 *   and the follow-up's JSON Pointer
 */
export function assertStorableFollowUps(items: readonly CompleteInput[]): void {
  for (const item of items) {
    item.followUps?.forEach((followUp, index) => {
      const where = `job ${item.id}: /followUps/${index}`;
      const { payloadJson: _payloadJson, ...options } = followUp;
      const refused = jobInputProblem(options, `/followUps/${index}`, 'date', index);
      if (refused) throw new NudgeError(refused.code, `job ${item.id}: ${refused.message}`);
      const problem =
        followUp.payloadJson === undefined ? undefined : findUnstorableJsonText(followUp.payloadJson);
      if (problem) {
        throw new NudgeError(
          problem.problem === 'too-deep' ? 'PAYLOAD_TOO_DEEP' : 'PAYLOAD_UNSTORABLE',
          `${where}/payload: ${problem.reason}`,
        );
      }
    });
  }
}

/**
 * The follow-ups of a batch as one JSON array of records for PostgreSQL's `jsonb_to_recordset`:
 * `parent_id` and the record fields of `@nudge/core`'s job columns (`pgRecordDefinition`),
 * omitted fields absent. Each payload's JSON text is spliced in, not parsed again.
 */
export function followUpRecordsJson(items: readonly CompleteInput[]): string {
  const records: string[] = [];
  for (const item of items) {
    for (const f of item.followUps ?? []) {
      const head = JSON.stringify({
        parent_id: item.id,
        ...Object.fromEntries(FIELDS.map((c) => [c.recordField, c.value(f)])),
      });
      records.push(f.payloadJson === undefined ? head : `${head.slice(0, -1)},"payload":${f.payloadJson}}`);
    }
  }
  return `[${records.join(',')}]`;
}
