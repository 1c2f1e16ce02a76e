import type Database from 'better-sqlite3';
import type { ClaimGroup, ClaimInput, ClaimedJob } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowPlus } from './sqlite-time.js';

// Invariant: one statement picks and flips the rows, under BEGIN IMMEDIATE, so no two claimers
// (threads or processes) can both see a row as PENDING; each claim bumps version and attempts.
// Each candidate select reads at most its limit of PENDING rows of its group's kinds and queues
// (never of a paused queue) through a claim index, which holds nothing else (not-due rows wait as
// SCHEDULED). With capped queues, each group has a candidate select per capped queue besides its
// own; the rows kept are, in claim order, at most the queue's limit per capped queue over all
// groups, then at most the limit per group.

/** A claim statement's text and its named parameters, built together so that they always agree. */
interface BuiltClaim {
  readonly text: string;
  readonly params: Record<string, unknown>;
}

const CLAIM_ORDER = 'priority, run_at, id';

/**
 * Builds the claim statement for groups whose limits are above 0. Parameters: `@now` (NULL for
 * the database clock), `@workerId`, `@leaseMs`, then `@p1`, `@p2` … for each group's kinds and
 * queues (JSON arrays) and limits, and the capped queues' limits, in order.
 */
export function buildSqliteClaim(input: ClaimInput, groups: readonly ClaimGroup[]): BuiltClaim {
  const params: Record<string, unknown> = {
    now: toSqliteTime(input.now),
    workerId: input.workerId,
    leaseMs: input.leaseMs,
  };
  let count = 0;
  const bind = (value: unknown): string => {
    count += 1;
    params[`p${count}`] = value;
    return `@p${count}`;
  };
  const limits = Object.entries(input.queueLimits ?? {});
  const capped = limits.map(([queue]) => queue);
  const open = limits.filter(([, limit]) => limit > 0);
  const candidate = (g: number, kinds: string, queueFilter: string, limit: string): string =>
    `SELECT ${g} AS g, id, queue, priority, run_at FROM (
       SELECT id, queue, priority, run_at FROM nudge_jobs
        WHERE status = 'PENDING' AND run_at <= ${SQLITE_NOW}
          AND kind IN (SELECT value FROM json_each(${kinds}))
          ${queueFilter} AND queue NOT IN (SELECT name FROM nudge_queues WHERE paused = 1)
        ORDER BY ${CLAIM_ORDER}
        LIMIT ${limit})`;
  const offered: string[] = [];
  groups.forEach((group, g) => {
    const kinds = bind(JSON.stringify(group.kinds));
    const queueFilter = [
      group.queues === undefined
        ? ''
        : `AND queue IN (SELECT value FROM json_each(${bind(JSON.stringify(group.queues))}))`,
      capped.length === 0
        ? ''
        : `AND queue NOT IN (SELECT value FROM json_each(${bind(JSON.stringify(capped))}))`,
    ].join(' ');
    offered.push(candidate(g, kinds, queueFilter, bind(group.limit)));
    for (const [queue, queueLimit] of open) {
      offered.push(
        candidate(g, kinds, `AND queue = ${bind(queue)}`, bind(Math.min(queueLimit, group.limit))),
      );
    }
  });
  let kept = `SELECT id FROM (${offered.join(' UNION ALL ')})`;
  if (open.length > 0) {
    const groupLimits = bind(JSON.stringify(groups.map((group) => group.limit)));
    const queueLimits = bind(JSON.stringify(Object.fromEntries(open)));
    kept = `SELECT id FROM (
      SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY ${CLAIM_ORDER}) AS in_group FROM (
        SELECT *, row_number() OVER (PARTITION BY queue ORDER BY ${CLAIM_ORDER}) AS in_queue,
               json_extract(${queueLimits}, '$."' || queue || '"') AS cap
          FROM (${offered.join(' UNION ALL ')})
      ) WHERE cap IS NULL OR in_queue <= cap
    ) WHERE in_group <= json_extract(${groupLimits}, '$[' || g || ']')`;
  }
  const text = `
UPDATE nudge_jobs
   SET status = 'RUNNING',
       version = version + 1,
       attempts = attempts + 1,
       claimed_by = @workerId,
       started_at = ${SQLITE_NOW},
       lease_expires_at = ${sqliteNowPlus('@leaseMs')}
 WHERE id IN (${kept})
RETURNING id, version, kind, queue, payload, attempts,
          (julianday(coalesce(@now, 'now')) - julianday(run_at)) * 86400000.0 AS wait_ms, depends_on`;
  return { text, params };
}

interface ClaimRow {
  id: number;
  version: number;
  kind: string;
  queue: string;
  payload: string;
  attempts: number;
  wait_ms: number;
  /** JSON text, `null` without dependencies. */
  depends_on: string | null;
}

/** Prepares the SQLite claim (a statement per shape of groups); see {@link Store.claim}. */
export function createSqliteClaim(db: Database.Database): (input: ClaimInput) => ClaimedJob[] {
  const statements = new Map<string, Database.Statement<Record<string, unknown>, ClaimRow>>();
  const claim = db.transaction((input: ClaimInput) => {
    const groups = input.groups.filter((group) => group.limit > 0 && group.kinds.length > 0);
    if (groups.length === 0) return [];
    const { text, params } = buildSqliteClaim(input, groups);
    let statement = statements.get(text);
    if (!statement) {
      statement = db.prepare<Record<string, unknown>, ClaimRow>(text);
      statements.set(text, statement);
    }
    return statement.all(params);
  });
  return (input) =>
    claim.immediate(input).map((row) => ({
      id: row.id,
      version: row.version,
      kind: row.kind,
      queue: row.queue,
      payloadJson: row.payload,
      attempt: row.attempts,
      waitMs: Math.max(0, row.wait_ms),
      ...(row.depends_on === null ? {} : { dependsOn: JSON.parse(row.depends_on) as number[] }),
    }));
}
