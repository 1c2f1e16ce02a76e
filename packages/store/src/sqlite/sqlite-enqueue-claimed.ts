import type Database from 'better-sqlite3';
import { DEFAULT_PRIORITY, DEFAULT_QUEUE } from '@nudge/core';
import {
  JOB_COLUMNS,
  keyedRepeatConflict,
  insertJobsSql,
  paramValue,
  type EnqueueRow,
  type JobColumn,
} from '../sql/index.js';
import type { EnqueuedJob, SelfClaimInput } from '../store.js';
import { sqliteRowToJob, type SqliteJobRow } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowPlus } from './sqlite-time.js';
import { SQLITE_LIMITED } from './sqlite-queue-limits-sql.js';

/**
 * The job's columns besides `kind`, `queue` and `priority` (always bound: the claim check needs
 * them): present ones are bound, absent ones fall to the column defaults.
 */
const OPTIONAL = JOB_COLUMNS.filter((c) => !['kind', 'queue', 'priority'].includes(c.field));

// Invariant: the row is inserted RUNNING (attempt 1, version 1, leased to @workerId) only when it
// is due and no due PENDING job of the competing kinds comes at or before it in claim order
// (priority <= its priority); the check and the insert are one statement under BEGIN IMMEDIATE.
// A job of a paused or limited queue is never claimed here (a limited queue's jobs start only
// through the claim, which counts them against the limits). Otherwise it is inserted exactly as a plain enqueue would be. A job whose kind and idempotency
// key exist inserts nothing and is read back, never claimed by this call. (`WHERE true` lets
// SQLite parse the upsert clause after a SELECT.)
function enqueueClaimedSql(present: readonly JobColumn[]): string {
  const columns = ['kind', 'queue', 'priority', ...present.map((o) => o.column)];
  // A delay is added to the database clock inside the statement (never claimed when above 0).
  const delay = present.find((o) => o.clockPlusMs);
  const delayed = sqliteNowPlus(`@${delay?.field ?? 'delayMs'}`);
  const values = [
    '@kind',
    '@queue',
    '@priority',
    ...present.map((o) => (o.clockPlusMs ? delayed : `@${o.field}`)),
  ];
  const runAtField = present.find((o) => o.column === 'run_at' && !o.clockPlusMs);
  const runAt = runAtField ? `@${runAtField.field}` : delay ? delayed : SQLITE_NOW;
  return insertJobsSql({
    columns: [...columns, 'status', 'attempts', 'version', 'claimed_by', 'started_at', 'lease_expires_at'],
    rows: `SELECT ${values.join(', ')},
       CASE WHEN c.claim THEN 'RUNNING' WHEN ${runAt} > ${SQLITE_NOW} THEN 'SCHEDULED' ELSE 'PENDING' END,
       CASE WHEN c.claim THEN 1 ELSE 0 END,
       CASE WHEN c.claim THEN 1 ELSE 0 END,
       CASE WHEN c.claim THEN @workerId END,
       CASE WHEN c.claim THEN ${SQLITE_NOW} END,
       CASE WHEN c.claim THEN ${sqliteNowPlus('@leaseMs')} END
  FROM (SELECT ${runAt} <= ${SQLITE_NOW} AND NOT EXISTS (
          SELECT 1 FROM nudge_jobs
           WHERE status = 'PENDING' AND priority <= @priority AND run_at <= ${SQLITE_NOW}
             AND kind IN (SELECT value FROM json_each(@kinds)))
          AND NOT EXISTS (SELECT 1 FROM nudge_queues AS q WHERE q.name = @queue AND (q.paused = 1 OR ${SQLITE_LIMITED})) AS claim) AS c
 WHERE true`,
    returning: '*',
  });
}

/** Prepares the SQLite enqueue that claims for itself; see {@link Store.enqueueAndClaim}. */
export function createSqliteEnqueueClaimed(
  db: Database.Database,
): (input: EnqueueRow, claim: SelfClaimInput) => EnqueuedJob {
  const statements = new Map<string, Database.Statement<Record<string, unknown>, SqliteJobRow>>();
  const existing = db.prepare<[string, string], SqliteJobRow>(
    'SELECT * FROM nudge_jobs WHERE kind = ? AND idempotency_key = ?',
  );
  const insert = db.transaction((input: EnqueueRow, claim: SelfClaimInput): EnqueuedJob => {
    const present = OPTIONAL.filter((o) => input[o.field] !== undefined);
    const key = present.map((o) => o.field).join(',');
    let statement = statements.get(key);
    if (!statement) {
      statement = db.prepare<Record<string, unknown>, SqliteJobRow>(enqueueClaimedSql(present));
      statements.set(key, statement);
    }
    const params: Record<string, unknown> = {
      kind: input.kind,
      queue: input.queue ?? DEFAULT_QUEUE,
      priority: input.priority ?? DEFAULT_PRIORITY,
      workerId: claim.workerId,
      leaseMs: claim.leaseMs,
      kinds: JSON.stringify(claim.kinds),
      now: null,
    };
    for (const o of present) params[o.field] = paramValue(o, input);
    const row = statement.get(params);
    if (row) return { ...sqliteRowToJob(row), created: true };
    const found =
      input.idempotencyKey === undefined ? undefined : existing.get(input.kind, input.idempotencyKey);
    if (!found) throw new Error('INSERT … RETURNING returned no row');
    const job = sqliteRowToJob(found);
    // This path takes jobs without dependencies only.
    const conflict = keyedRepeatConflict('', job, []);
    if (conflict) throw conflict;
    return { ...job, created: false };
  });
  return (input, claim) => insert.immediate(input, claim);
}
