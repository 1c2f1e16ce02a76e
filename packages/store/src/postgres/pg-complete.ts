import type pg from 'pg';
import { insertJobsSql, pgRecordDefinition, pgRecordValues } from '../sql/index.js';
import { hasPlannedFollowUps } from '../planned-follow-ups.js';
import { followUpRecordsJson, hasFollowUps } from '../follow-ups.js';
import type { CompleteInput, JobLease } from '../store.js';
import { pgIdArray, pgLeaseMap, pgLeaseMatches, pgLeaseValue } from './pg-lease-map.js';
import { pgCompletePlanned } from './pg-complete-planned.js';
import { pgNow } from './pg-row.js';

// Invariant: only the current attempt (same id and version, still RUNNING) records a success.
// $2 maps each id to [version] or [version, result]; a missing result is SQL NULL.
const UPDATE = `
UPDATE nudge_jobs AS j
   SET status = 'SUCCEEDED', result = ${pgLeaseValue('$2', 1)}, finished_at = ${pgNow('$3')}, lease_expires_at = NULL`;
const FENCE = `
 WHERE j.id = ANY($1::bigint[]) AND j.status = 'RUNNING' AND ${pgLeaseMatches('$2')}
RETURNING j.id, j.version, j.has_dependents`;

/** The hot path: results only. */
const COMPLETE = `${UPDATE}${FENCE}`;

// The same, with the last progress ($4 maps ids to it) and follow-up jobs ($5, records with
// their parent's id): a follow-up is inserted only when its parent's completion was recorded by
// this very statement, so a fenced-out completion enqueues nothing. A follow-up whose kind and
// key exist is skipped; a future run_at is made SCHEDULED by the insert trigger, and a PENDING
// one notifies listeners through the statement trigger.
const FOLLOW_UP = pgRecordValues('f', pgNow('$3'));
const COMPLETE_WITH_EXTRAS = `
WITH done AS (${UPDATE},
       progress = coalesce($4::jsonb -> (j.id::text), j.progress)${FENCE}
), follow_ups AS (
${insertJobsSql({
  columns: FOLLOW_UP.columns,
  rows: `SELECT ${FOLLOW_UP.values.join(', ')}
  FROM jsonb_to_recordset($5::jsonb) AS f(parent_id bigint, ${pgRecordDefinition()})
 WHERE f.parent_id IN (SELECT id FROM done)`,
})}
)
SELECT id, version, has_dependents FROM done`;

/** A row the completion returned, with `has_dependents` folded into the lease (see {@link JobLease}). */
interface CompletedRow {
  readonly id: number;
  readonly version: number;
  readonly has_dependents: boolean;
}

const toLeases = (rows: readonly CompletedRow[]): JobLease[] =>
  rows.map(({ id, version, has_dependents }) =>
    has_dependents ? { id, version, hasDependents: true } : { id, version },
  );

function progressMap(items: readonly CompleteInput[]): string {
  const parts: string[] = [];
  for (const item of items) {
    if (item.progressJson !== undefined) parts.push(`"${item.id}":${item.progressJson}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * The PostgreSQL completion, one statement for the batch; see {@link Store.complete}. A batch
 * without progress or follow-ups runs the plain statement; one with throttled, debounced or
 * dependent follow-ups runs in a transaction ({@link pgCompletePlanned}).
 */
export async function pgComplete(
  pool: pg.Pool,
  items: readonly CompleteInput[],
  now?: Date,
): Promise<JobLease[]> {
  if (hasPlannedFollowUps(items)) return pgCompletePlanned(pool, items, now, pgCompleteOn);
  return pgCompleteOn(pool, items, now);
}

/** {@link pgComplete} on a pool or inside a client's transaction, without follow-ups that take the enqueue plan. */
async function pgCompleteOn(
  pool: pg.Pool | pg.ClientBase,
  items: readonly CompleteInput[],
  now?: Date,
): Promise<JobLease[]> {
  if (items.length === 0) return [];
  const values: unknown[] = [
    pgIdArray(items),
    pgLeaseMap(items, (i) => (i.resultJson === null ? [] : [i.resultJson])),
    now ?? null,
  ];
  const extras = hasFollowUps(items) || items.some((i) => i.progressJson !== undefined);
  if (!extras) {
    const { rows } = await pool.query<CompletedRow>({ name: 'nudge_complete', text: COMPLETE, values });
    return toLeases(rows);
  }
  const { rows } = await pool.query<CompletedRow>({
    name: 'nudge_complete_extras',
    text: COMPLETE_WITH_EXTRAS,
    values: [...values, progressMap(items), followUpRecordsJson(items)],
  });
  return toLeases(rows);
}
