import type pg from 'pg';
import { createHash } from 'node:crypto';
import type { ClaimGroup, ClaimInput, ClaimSource, ClaimedJob } from '../store.js';
import { pgMs, pgNow } from './pg-row.js';

// Invariant: each source's CTE locks at most its limit of due PENDING rows of its group's kinds
// and queues (never of a paused queue), skipping rows other claimers hold; a group with several
// sources keeps the first `limit` of their rows in claim order, and the UPDATE flips exactly the
// rows kept; each claim bumps version and attempts. (Rows a source locked but its group did not
// keep are unlocked when the statement ends.) The LIMIT must sit in a CTE: a bare
// `id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)` may be re-evaluated and lock more than n rows.
// Only PENDING rows are read: the partial claim indexes hold nothing else, and not-due rows wait
// as SCHEDULED. The picked ids are updated through `id = ANY(ARRAY(…))`, a primary-key lookup,
// rather than a join whose plan depends on statistics. The paused queues are read once per
// source (an init plan), so a pause is obeyed from the next claim on. The batch comes back as
// one JSON text: the client parses it natively, not row by row.

/** A claim statement's text and its bound values, built together so that they always agree. */
interface BuiltClaim {
  readonly text: string;
  readonly values: unknown[];
}

function sourceFilter(source: ClaimSource, bind: (value: unknown) => string): string {
  if (source.queues !== undefined) {
    return source.queues.length === 1
      ? `AND queue = ${bind(source.queues[0])}::text`
      : `AND queue = ANY(${bind(source.queues)}::text[])`;
  }
  return source.exceptQueues !== undefined && source.exceptQueues.length > 0
    ? `AND queue <> ALL(${bind(source.exceptQueues)}::text[])`
    : '';
}

/**
 * Builds the claim statement for groups whose limits are above 0. Values: `$1` now (NULL for the
 * database clock), `$2` worker id, `$3` lease in ms, then each group's and source's kinds, queues
 * and limits in order.
 */
export function buildPgClaim(input: ClaimInput, groups: readonly ClaimGroup[]): BuiltClaim {
  const values: unknown[] = [input.now ?? null, input.workerId, input.leaseMs];
  const bind = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const ctes: string[] = [];
  const picked: string[] = [];
  groups.forEach((group, g) => {
    const kinds = bind(group.kinds);
    const sources = group.sources?.filter((s) => s.limit > 0) ?? [{ limit: group.limit }];
    const limit = bind(sources.length === 1 ? Math.min(group.limit, sources[0]?.limit ?? 0) : group.limit);
    const names = sources.map((source, s) => {
      const name = sources.length === 1 ? `g${g}` : `g${g}s${s}`;
      const sourceLimit = sources.length === 1 ? limit : bind(Math.min(group.limit, source.limit));
      ctes.push(`${name} AS (
  SELECT id, priority, run_at FROM nudge_jobs
   WHERE status = 'PENDING' AND run_at <= ${pgNow('$1')} AND kind = ANY(${kinds}::text[])
     ${sourceFilter(source, bind)} AND queue <> ALL(ARRAY(SELECT name FROM nudge_queues WHERE paused))
   ORDER BY priority, run_at, id
   LIMIT ${sourceLimit}
   FOR UPDATE SKIP LOCKED
)`);
      return name;
    });
    if (names.length > 1) {
      ctes.push(`g${g} AS (
  SELECT id FROM (${names.map((n) => `SELECT * FROM ${n}`).join(' UNION ALL ')}) AS offered
   ORDER BY priority, run_at, id
   LIMIT ${limit}
)`);
    }
    picked.push(`SELECT id FROM g${g}`);
  });
  const text = `
WITH ${ctes.join(',\n')},
claimed AS (
  UPDATE nudge_jobs AS j
     SET status = 'RUNNING',
         version = j.version + 1,
         attempts = j.attempts + 1,
         claimed_by = $2,
         started_at = ${pgNow('$1')},
         lease_expires_at = ${pgNow('$1')} + ${pgMs('$3')}
   WHERE j.id = ANY(ARRAY(${picked.join(' UNION ALL ')}))
  RETURNING j.id, j.version, j.kind, j.queue, j.attempts, j.payload
)
SELECT coalesce(json_agg(json_build_array(id, version, kind, queue, attempts, payload::text)), '[]')::text AS jobs
  FROM claimed`;
  return { text, values };
}

/** A claimed row as the statement encodes it: `[id, version, kind, queue, attempts, payloadJson]`. */
type ClaimTuple = [number, number, string, string, number, string];

/** Prepared statement names by statement text: a claim's text depends only on its shape. */
const names = new Map<string, string>();

function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `nudge_claim_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    names.set(text, name);
  }
  return name;
}

/** The PostgreSQL claim, a named prepared statement per shape of groups; see {@link Store.claim}. */
export async function pgClaim(pool: pg.Pool, input: ClaimInput): Promise<ClaimedJob[]> {
  const groups = input.groups.filter(
    (group) =>
      group.limit > 0 &&
      group.kinds.length > 0 &&
      (group.sources === undefined || group.sources.some((source) => source.limit > 0)),
  );
  if (groups.length === 0) return [];
  const { text, values } = buildPgClaim(input, groups);
  // One text value for the whole batch: a native JSON.parse instead of parsing a row per job.
  const { rows } = await pool.query<{ jobs: string }>({ name: statementName(text), text, values });
  const tuples = JSON.parse(rows[0]?.jobs ?? '[]') as ClaimTuple[];
  return tuples.map(([id, version, kind, queue, attempt, payloadJson]) => ({
    id,
    version,
    kind,
    queue,
    payloadJson,
    attempt,
  }));
}
