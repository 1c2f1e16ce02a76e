import type Database from 'better-sqlite3';
import type { ClaimInput, ClaimedJob } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowPlus } from './sqlite-time.js';

// Invariant: one statement picks and flips the rows, under BEGIN IMMEDIATE, so no two claimers
// (threads or processes) can both see a row as PENDING; each claim bumps version and attempts.
// Each group reads at most its limit of PENDING rows of its kinds through the claim index, which
// holds nothing else (not-due rows wait as SCHEDULED).
/**
 * The claim statement for `groups` groups. Parameters: `@now` (NULL for the database clock),
 * `@workerId`, `@leaseMs`, then for group `g` `@kinds<g>` (a JSON array) and `@limit<g>`.
 */
export function sqliteClaimSql(groups: number): string {
  const picks = Array.from(
    { length: groups },
    (_, g) => `SELECT id FROM (
                 SELECT id FROM nudge_jobs
                  WHERE status = 'PENDING' AND run_at <= ${SQLITE_NOW}
                    AND kind IN (SELECT value FROM json_each(@kinds${g}))
                  ORDER BY priority, run_at, id
                  LIMIT @limit${g})`,
  );
  return `
UPDATE nudge_jobs
   SET status = 'RUNNING',
       version = version + 1,
       attempts = attempts + 1,
       claimed_by = @workerId,
       started_at = ${SQLITE_NOW},
       lease_expires_at = ${sqliteNowPlus('@leaseMs')}
 WHERE id IN (${picks.join(' UNION ALL ')})
RETURNING id, version, kind, payload, attempts`;
}

interface ClaimRow {
  id: number;
  version: number;
  kind: string;
  payload: string;
  attempts: number;
}

/** Prepares the SQLite claim (a statement per number of groups); see {@link Store.claim}. */
export function createSqliteClaim(db: Database.Database): (input: ClaimInput) => ClaimedJob[] {
  const statements = new Map<number, Database.Statement<Record<string, unknown>, ClaimRow>>();
  const claim = db.transaction((input: ClaimInput) => {
    const groups = input.groups.filter((group) => group.limit > 0 && group.kinds.length > 0);
    if (groups.length === 0) return [];
    let statement = statements.get(groups.length);
    if (!statement) {
      statement = db.prepare<Record<string, unknown>, ClaimRow>(sqliteClaimSql(groups.length));
      statements.set(groups.length, statement);
    }
    const params: Record<string, unknown> = {
      workerId: input.workerId,
      leaseMs: input.leaseMs,
      now: toSqliteTime(input.now),
    };
    groups.forEach((group, g) => {
      params[`kinds${g}`] = JSON.stringify(group.kinds);
      params[`limit${g}`] = group.limit;
    });
    return statement.all(params);
  });
  return (input) =>
    claim.immediate(input).map((row) => ({
      id: row.id,
      version: row.version,
      kind: row.kind,
      payloadJson: row.payload,
      attempt: row.attempts,
    }));
}
