import { createHash } from 'node:crypto';
import type pg from 'pg';
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
import { pgMs, pgRowToJob, type PgJobRow } from './pg-row.js';
import { limitedQueue } from './pg-queue-limits-sql.js';

/**
 * The job's columns besides `kind`, `queue` and `priority` (always bound: the claim check needs
 * them): present ones are bound, absent ones fall to the column defaults.
 */
const OPTIONAL = JOB_COLUMNS.filter((c) => !['kind', 'queue', 'priority'].includes(c.field));

// Invariant: the row is inserted RUNNING (attempt 1, version 1, leased to $1) only when it is due
// and no due PENDING job of the competing kinds comes at or before it in claim order
// (priority <= its priority), and its queue is neither paused nor limited (a limited queue's
// jobs start only through the claim, which counts them against the limits); the check and the insert are one statement, so no separate read
// can go stale. Otherwise it is inserted exactly as a plain enqueue would be. A job whose kind and
// idempotency key exist inserts nothing: it is read back and never claimed by this call.
function enqueueClaimedSql(present: readonly JobColumn[]): string {
  const columns = ['kind', 'priority', 'queue', ...present.map((o) => o.column)];
  // A delay is added to the database clock inside the statement (never claimed when above 0).
  const value = (o: JobColumn, i: number): string =>
    o.clockPlusMs ? `n.now + ${pgMs(`$${7 + i}`)}` : `$${7 + i}::${o.pgType}`;
  const values = ['$4', '$5::integer', '$6::text', ...present.map(value)];
  const runAtIndex = present.findIndex((o) => o.column === 'run_at');
  const runAtField = present[runAtIndex];
  const runAt = runAtField === undefined ? 'n.now' : value(runAtField, runAtIndex);
  return insertJobsSql({
    columns: [...columns, 'status', 'attempts', 'version', 'claimed_by', 'started_at', 'lease_expires_at'],
    rows: `SELECT ${values.join(', ')},
       CASE WHEN c.claim THEN 'RUNNING' WHEN ${runAt} > n.now THEN 'SCHEDULED' ELSE 'PENDING' END,
       CASE WHEN c.claim THEN 1 ELSE 0 END,
       CASE WHEN c.claim THEN 1 ELSE 0 END,
       CASE WHEN c.claim THEN $1 END,
       CASE WHEN c.claim THEN n.now END,
       CASE WHEN c.claim THEN n.now + ${pgMs('$2')} END
  FROM (SELECT now() AS now) AS n,
       LATERAL (SELECT ${runAt} <= n.now AND NOT EXISTS (
                  SELECT 1 FROM nudge_jobs
                   WHERE status = 'PENDING' AND priority <= $5::integer AND run_at <= n.now
                     AND kind = ANY($3::text[]))
                  AND NOT EXISTS (SELECT 1 FROM nudge_queues WHERE name = $6::text AND (paused OR ${limitedQueue()}))
                  AS claim) AS c`,
    returning: '*',
  });
}

const statements = new Map<string, { readonly name: string; readonly text: string }>();

/** The PostgreSQL enqueue that claims for itself; see {@link Store.enqueueAndClaim}. */
export async function pgEnqueueClaimed(
  pool: pg.Pool,
  input: EnqueueRow,
  claim: SelfClaimInput,
): Promise<EnqueuedJob> {
  const present = OPTIONAL.filter((o) => input[o.field] !== undefined);
  const key = present.map((o) => o.field).join('_') || 'bare';
  let statement = statements.get(key);
  if (statement === undefined) {
    // PostgreSQL cuts names at 63 bytes: a name made of the fields would give two shapes one name.
    const name = `nudge_enqueue_claimed_${createHash('sha1').update(key).digest('hex').slice(0, 16)}`;
    statement = { name, text: enqueueClaimedSql(present) };
    statements.set(key, statement);
  }
  const values: unknown[] = [
    claim.workerId,
    claim.leaseMs,
    claim.kinds,
    input.kind,
    input.priority ?? DEFAULT_PRIORITY,
    input.queue ?? DEFAULT_QUEUE,
  ];
  for (const o of present) values.push(paramValue(o, input));
  const { rows } = await pool.query<PgJobRow>({ ...statement, values });
  const row = rows[0];
  if (row) return { ...pgRowToJob(row), created: true };
  if (input.idempotencyKey === undefined) throw new Error('INSERT … RETURNING returned no row');
  const existing = await pool.query<PgJobRow>(
    'SELECT * FROM nudge_jobs WHERE kind = $1 AND idempotency_key = $2',
    [input.kind, input.idempotencyKey],
  );
  const found = existing.rows[0];
  // The existing job vanished in between: enqueue it again as any other producer would.
  if (!found) return pgEnqueueClaimed(pool, input, claim);
  const job = pgRowToJob(found);
  // This path takes jobs without dependencies only.
  const conflict = keyedRepeatConflict('', job, []);
  if (conflict) throw conflict;
  return { ...job, created: false };
}
