import type Database from 'better-sqlite3';
import { validateSignalJson } from '@nudge/core';
import { sendSignalPlan, signalRefusal, type SqlQuery } from '../sql/index.js';
import type { SentSignal, SignalInput } from '../step-types.js';

/**
 * The signal sender of a SQLite store; see {@link Store.sendSignal}. Each send is one
 * `BEGIN IMMEDIATE` transaction: the insert (whose trigger releases a job waiting for the name)
 * and, for a repeat of `signalId`, the read of the signal first sent with it.
 */
export function createSqliteSendSignal(db: Database.Database): (input: SignalInput) => SentSignal {
  const statements = new Map<string, Database.Statement>();
  const run = (query: SqlQuery): unknown[] => {
    let statement = statements.get(query.sql);
    if (!statement) statements.set(query.sql, (statement = db.prepare(query.sql)));
    return statement.all(...query.params);
  };
  const send = db.transaction((input: SignalInput): SentSignal => {
    const plan = sendSignalPlan('sqlite', input);
    let step = plan.next();
    while (!step.done) step = plan.next(run(step.value));
    return step.value;
  });
  /**
   * @throws NudgeError `INVALID_REQUEST`, `PAYLOAD_TOO_DEEP` or `PAYLOAD_UNSTORABLE` before
   *   anything is sent; `JOB_NOT_FOUND` or `JOB_STATE_CONFLICT` when the trigger refuses the job
   */
  return (input) => {
    validateSignalJson(input);
    try {
      return send.immediate(input);
    } catch (error) {
      throw signalRefusal(error, input.jobId) ?? error;
    }
  };
}
