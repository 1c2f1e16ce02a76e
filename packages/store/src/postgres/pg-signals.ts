import type pg from 'pg';
import { validateSignalJson } from '@nudge/core';
import { sendSignalPlan, signalRefusal } from '../sql/index.js';
import type { SentSignal, SignalInput } from '../step-types.js';

/**
 * Sends a signal; see {@link Store.sendSignal}. The insert commits on its own (its trigger
 * releases a job waiting for the name in that transaction); a repeat of `signalId` is read back by
 * a second statement, whose fresh snapshot sees a signal a concurrent sender committed.
 * @throws NudgeError `INVALID_REQUEST`, `PAYLOAD_TOO_DEEP` or `PAYLOAD_UNSTORABLE` before anything
 *   is sent; `JOB_NOT_FOUND` or `JOB_STATE_CONFLICT` when the trigger refuses the job
 */
export async function pgSendSignal(pool: pg.Pool, input: SignalInput): Promise<SentSignal> {
  validateSignalJson(input);
  const plan = sendSignalPlan('postgres', input);
  try {
    let step = plan.next();
    while (!step.done) {
      const { rows } = await pool.query(step.value.sql, [...step.value.params]);
      step = plan.next(rows);
    }
    return step.value;
  } catch (error) {
    throw signalRefusal(error, input.jobId) ?? error;
  }
}
