import type pg from 'pg';
import type { ClaimInput, ClaimedJob } from '../store.js';
import { pgMs, pgNow } from './pg-row.js';

// Invariant: each group's CTE locks at most its limit of due PENDING rows of its kinds, skipping
// rows other claimers hold, and the UPDATE flips exactly those rows; each claim bumps version and
// attempts. The LIMIT must sit in a CTE: a bare `id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)`
// may be re-evaluated and lock more than n rows. Only PENDING rows are read: the partial claim
// index holds nothing else, and not-due rows wait as SCHEDULED. The picked ids are updated through
// `id = ANY(ARRAY(…))`, a primary-key lookup, rather than a join whose plan depends on statistics.
// The batch comes back as one JSON text: the client parses it natively, not row by row.
/**
 * The claim statement for `groups` groups. Parameters: `$1` now (NULL for the database clock),
 * `$2` worker id, `$3` lease in ms, then for group `g` its kinds as a text array (`$4 + 2g`) and
 * its limit (`$5 + 2g`).
 */
export function pgClaimSql(groups: number): string {
  const picks = Array.from(
    { length: groups },
    (_, g) => `g${g} AS (
  SELECT id FROM nudge_jobs
   WHERE status = 'PENDING' AND run_at <= ${pgNow('$1')} AND kind = ANY($${4 + 2 * g}::text[])
   ORDER BY priority, run_at, id
   LIMIT $${5 + 2 * g}
   FOR UPDATE SKIP LOCKED
)`,
  );
  const union = Array.from({ length: groups }, (_, g) => `SELECT id FROM g${g}`).join(' UNION ALL ');
  return `
WITH ${picks.join(',\n')},
claimed AS (
  UPDATE nudge_jobs AS j
     SET status = 'RUNNING',
         version = j.version + 1,
         attempts = j.attempts + 1,
         claimed_by = $2,
         started_at = ${pgNow('$1')},
         lease_expires_at = ${pgNow('$1')} + ${pgMs('$3')}
   WHERE j.id = ANY(ARRAY(${union}))
  RETURNING j.id, j.version, j.kind, j.attempts, j.payload
)
SELECT coalesce(json_agg(json_build_array(id, version, kind, attempts, payload::text)), '[]')::text AS jobs
  FROM claimed`;
}

/** A claimed row as the statement encodes it: `[id, version, kind, attempts, payloadJson]`. */
type ClaimTuple = [number, number, string, number, string];

const statements = new Map<number, string>();

/** The PostgreSQL claim, a named prepared statement per number of groups; see {@link Store.claim}. */
export async function pgClaim(pool: pg.Pool, input: ClaimInput): Promise<ClaimedJob[]> {
  const groups = input.groups.filter((group) => group.limit > 0 && group.kinds.length > 0);
  if (groups.length === 0) return [];
  let text = statements.get(groups.length);
  if (text === undefined) {
    text = pgClaimSql(groups.length);
    statements.set(groups.length, text);
  }
  const values: unknown[] = [input.now ?? null, input.workerId, input.leaseMs];
  for (const group of groups) values.push(group.kinds, group.limit);
  // One text value for the whole batch: a native JSON.parse instead of parsing a row per job.
  const { rows } = await pool.query<{ jobs: string }>({ name: `nudge_claim_${groups.length}`, text, values });
  const tuples = JSON.parse(rows[0]?.jobs ?? '[]') as ClaimTuple[];
  return tuples.map(([id, version, kind, attempt, payloadJson]) => ({
    id,
    version,
    kind,
    payloadJson,
    attempt,
  }));
}
