import type pg from 'pg';
import { createHash } from 'node:crypto';
import type { ClaimGroup, ClaimInput, ClaimedJob } from '../store.js';
import { pgMs, pgNow } from './pg-row.js';

// Invariant: each candidate CTE locks at most its limit of due PENDING rows of its group's kinds
// and queues (never of a paused queue), skipping rows other claimers hold; the UPDATE flips
// exactly the rows kept, and each claim bumps version and attempts. With capped queues, each
// group has a candidate CTE per capped queue besides its own; the rows kept are, in claim order,
// at most the queue's limit per capped queue over all groups, then at most the limit per group.
// (Rows locked but not kept are unlocked when the statement ends.) The LIMIT must sit in a CTE: a
// bare `id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)` may be re-evaluated and lock more than n
// rows. Only PENDING rows are read: the partial claim indexes hold nothing else, and not-due rows
// wait as SCHEDULED. The kept ids are updated through `id = ANY(ARRAY(…))`, a primary-key lookup,
// rather than a join whose plan depends on statistics. The paused queues are read by each
// candidate CTE (an init plan), so a pause is obeyed from the next claim on. The batch comes back
// as one JSON text: the client parses it natively, not row by row.

/** A claim statement's text and its bound values, built together so that they always agree. */
interface BuiltClaim {
  readonly text: string;
  readonly values: unknown[];
}

const CLAIM_ORDER = 'priority, run_at, id';

/**
 * Builds the claim statement for groups whose limits are above 0. Values: `$1` now (NULL for the
 * database clock), `$2` worker id, `$3` lease in ms, then each group's kinds, queues and limits,
 * and the capped queues' names and limits, in order.
 */
export function buildPgClaim(input: ClaimInput, groups: readonly ClaimGroup[]): BuiltClaim {
  const values: unknown[] = [input.now ?? null, input.workerId, input.leaseMs];
  const bind = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const limits = Object.entries(input.queueLimits ?? {});
  const capped = limits.map(([queue]) => queue);
  const open = limits.filter(([, limit]) => limit > 0);
  const ctes: string[] = [];
  const candidate = (name: string, kinds: string, queueFilter: string, limit: string): void => {
    ctes.push(`${name} AS (
  SELECT id, queue, priority, run_at FROM nudge_jobs
   WHERE status = 'PENDING' AND run_at <= ${pgNow('$1')} AND kind = ANY(${kinds}::text[])
     ${queueFilter} AND queue <> ALL(ARRAY(SELECT name FROM nudge_queues WHERE paused))
   ORDER BY ${CLAIM_ORDER}
   LIMIT ${limit}
   FOR UPDATE SKIP LOCKED
)`);
  };
  const offered: string[] = [];
  groups.forEach((group, g) => {
    const kinds = bind(group.kinds);
    const limit = bind(group.limit);
    const queueFilter = [
      group.queues === undefined ? '' : `AND queue = ANY(${bind(group.queues)}::text[])`,
      capped.length === 0 ? '' : `AND queue <> ALL(${bind(capped)}::text[])`,
    ].join(' ');
    candidate(`g${g}`, kinds, queueFilter, limit);
    offered.push(`SELECT ${g} AS g, * FROM g${g}`);
    open.forEach(([queue, queueLimit], q) => {
      candidate(
        `g${g}q${q}`,
        kinds,
        `AND queue = ${bind(queue)}::text`,
        bind(Math.min(queueLimit, group.limit)),
      );
      offered.push(`SELECT ${g} AS g, * FROM g${g}q${q}`);
    });
  });
  let kept: string;
  if (open.length === 0) {
    kept = groups.map((_, g) => `SELECT id FROM g${g}`).join(' UNION ALL ');
  } else {
    const groupLimits = bind(groups.map((group) => group.limit));
    const queueNames = bind(open.map(([queue]) => queue));
    const queueLimits = bind(open.map(([, limit]) => limit));
    ctes.push(`offered AS (${offered.join(' UNION ALL ')}),
within_caps AS (
  SELECT o.*, row_number() OVER (PARTITION BY o.queue ORDER BY ${CLAIM_ORDER}) AS in_queue, c.cap
    FROM offered AS o
    LEFT JOIN unnest(${queueNames}::text[], ${queueLimits}::int[]) AS c(name, cap) ON c.name = o.queue
),
kept AS (
  SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY ${CLAIM_ORDER}) AS in_group
    FROM within_caps WHERE cap IS NULL OR in_queue <= cap
)`);
    kept = `SELECT id FROM kept WHERE in_group <= (${groupLimits}::int[])[g + 1]`;
  }
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
   WHERE j.id = ANY(ARRAY(${kept}))
  RETURNING j.id, j.version, j.kind, j.queue, j.attempts, j.payload,
            extract(epoch FROM ${pgNow('$1')} - j.run_at) * 1000 AS wait_ms, j.depends_on
)
SELECT coalesce(json_agg(json_build_array(id, version, kind, queue, attempts, payload::text, wait_ms, depends_on)), '[]')::text AS jobs
  FROM claimed`;
  return { text, values };
}

/**
 * A claimed row as the statement encodes it:
 * `[id, version, kind, queue, attempts, payloadJson, waitMs, dependsOn]`.
 */
type ClaimTuple = [number, number, string, string, number, string, number, number[] | null];

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
  const groups = input.groups.filter((group) => group.limit > 0 && group.kinds.length > 0);
  if (groups.length === 0) return [];
  const { text, values } = buildPgClaim(input, groups);
  // One text value for the whole batch: a native JSON.parse instead of parsing a row per job.
  const { rows } = await pool.query<{ jobs: string }>({ name: statementName(text), text, values });
  const tuples = JSON.parse(rows[0]?.jobs ?? '[]') as ClaimTuple[];
  return tuples.map(([id, version, kind, queue, attempt, payloadJson, waitMs, dependsOn]) => ({
    id,
    version,
    kind,
    queue,
    payloadJson,
    attempt,
    waitMs: Math.max(0, Number(waitMs)),
    ...(dependsOn === null ? {} : { dependsOn }),
  }));
}
