import type Database from 'better-sqlite3';
import type { ClaimGroup, ClaimInput, ClaimSource, ClaimedJob } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowPlus } from './sqlite-time.js';

// Invariant: one statement picks and flips the rows, under BEGIN IMMEDIATE, so no two claimers
// (threads or processes) can both see a row as PENDING; each claim bumps version and attempts.
// Each source reads at most its limit of PENDING rows of its group's kinds and queues (never of a
// paused queue) through a claim index, which holds nothing else (not-due rows wait as SCHEDULED);
// a group with several sources keeps the first `limit` of their rows in claim order.

/** A claim statement's text and its named parameters, built together so that they always agree. */
interface BuiltClaim {
  readonly text: string;
  readonly params: Record<string, unknown>;
}

const NOT_PAUSED = 'queue NOT IN (SELECT name FROM nudge_queues WHERE paused = 1)';

function sourceFilter(source: ClaimSource, bind: (value: unknown) => string): string {
  if (source.queues !== undefined) {
    return source.queues.length === 1
      ? `AND queue = ${bind(source.queues[0])}`
      : `AND queue IN (SELECT value FROM json_each(${bind(JSON.stringify(source.queues))}))`;
  }
  return source.exceptQueues !== undefined && source.exceptQueues.length > 0
    ? `AND queue NOT IN (SELECT value FROM json_each(${bind(JSON.stringify(source.exceptQueues))}))`
    : '';
}

/**
 * Builds the claim statement for groups whose limits are above 0. Parameters: `@now` (NULL for
 * the database clock), `@workerId`, `@leaseMs`, then `@p1`, `@p2` … for each group's and source's
 * kinds (JSON arrays), queues and limits in order.
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
  const picks = groups.map((group) => {
    const kinds = bind(JSON.stringify(group.kinds));
    const sources = group.sources?.filter((s) => s.limit > 0) ?? [{ limit: group.limit }];
    const selects = sources.map(
      (source) => `SELECT id, priority, run_at FROM (
                 SELECT id, priority, run_at FROM nudge_jobs
                  WHERE status = 'PENDING' AND run_at <= ${SQLITE_NOW}
                    AND kind IN (SELECT value FROM json_each(${kinds}))
                    ${sourceFilter(source, bind)} AND ${NOT_PAUSED}
                  ORDER BY priority, run_at, id
                  LIMIT ${bind(Math.min(group.limit, source.limit))})`,
    );
    if (selects.length === 1) return `SELECT id FROM (${selects[0] ?? ''})`;
    return `SELECT id FROM (SELECT * FROM (${selects.join(' UNION ALL ')})
                  ORDER BY priority, run_at, id
                  LIMIT ${bind(group.limit)})`;
  });
  const text = `
UPDATE nudge_jobs
   SET status = 'RUNNING',
       version = version + 1,
       attempts = attempts + 1,
       claimed_by = @workerId,
       started_at = ${SQLITE_NOW},
       lease_expires_at = ${sqliteNowPlus('@leaseMs')}
 WHERE id IN (${picks.join(' UNION ALL ')})
RETURNING id, version, kind, queue, payload, attempts`;
  return { text, params };
}

interface ClaimRow {
  id: number;
  version: number;
  kind: string;
  queue: string;
  payload: string;
  attempts: number;
}

/** Prepares the SQLite claim (a statement per shape of groups); see {@link Store.claim}. */
export function createSqliteClaim(db: Database.Database): (input: ClaimInput) => ClaimedJob[] {
  const statements = new Map<string, Database.Statement<Record<string, unknown>, ClaimRow>>();
  const claim = db.transaction((input: ClaimInput) => {
    const groups = input.groups.filter(
      (group) =>
        group.limit > 0 &&
        group.kinds.length > 0 &&
        (group.sources === undefined || group.sources.some((source) => source.limit > 0)),
    );
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
    }));
}
