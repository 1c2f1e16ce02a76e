import type Database from 'better-sqlite3';
import { SQLITE_CLAIMED_STEPS } from './sqlite-claimed-steps.js';
import type { ClaimGroup, ClaimInput, ClaimedJob, LimitedClaim } from '../store.js';
import { sqliteClaimKeptRows } from './sqlite-claim-kept-rows.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowPlus } from './sqlite-time.js';
import {
  WINDOW,
  prepareWindowProbes,
  sqliteKeyedByKey,
  sqliteOthersByQueue,
} from './sqlite-claim-windows.js';
import {
  SQLITE_LIMITS,
  SQLITE_LOG_STARTS,
  SQLITE_PRUNE_STARTS,
  SQLITE_NOW_MS,
  SQLITE_DUE_KEYED,
  SQLITE_DUE_PENDING,
  SQLITE_OTHERS_PENDING,
} from './sqlite-queue-limits-sql.js';
import { limitsFeedback, type RateRow } from '../claim-limits-feedback.js';
import type { SqliteHeldQueues } from './sqlite-held-queues.js';

// Invariant: one statement picks and flips the rows, under BEGIN IMMEDIATE, so no two claimers
// (threads or processes) can both see a row as PENDING; each claim bumps version and attempts.
// A candidate select reads rows only when a due row of its kinds exists (one probe of
// `nudge_jobs_kind_claimable`, in its LIMIT: as a WHERE term, SQLite would still walk the index,
// or turn an EXISTS into a join and sort the rows it reads): otherwise it would walk every due
// row of other kinds to find none, as a group of idle kinds did in each claim. (`+kind` keeps the
// rows' own read off that index: it would sort every due row of the kinds.)
// Each candidate select reads at most its limit of PENDING rows of its group's kinds and queues
// (never of a paused queue) through a claim index, which holds nothing else (not-due rows wait as
// SCHEDULED). With capped or limited queues, each group has a candidate select per such queue
// besides its own; the rows kept are, in claim order, at most the key's room per concurrency key,
// then at most the queue's room per capped or limited queue over all groups (the least of this
// instance's cap and the cluster limits' room, read earlier in the same transaction), then at
// most the limit per group.

/** A claim statement's text and its named parameters, built together so that they always agree. */
interface BuiltClaim {
  readonly text: string;
  readonly params: Record<string, unknown>;
}

/** A limited queue as the claim's transaction read it (see `SQLITE_LIMITS`). */
export interface SqliteLimitedQueue {
  readonly name: string;
  /** How many more of its jobs may start now, cluster-wide. */
  readonly room: number;
  readonly keyConcurrency: number | null;
  /**
   * With a key limit: the keys at it (a JSON array), whether to read the queue per key, and
   * whether its first due rows are all of those keys (see sqlite-claim-windows.ts).
   */
  readonly keys?: { readonly full: string; readonly byKey: boolean; readonly blocked?: boolean };
}

const CLAIM_ORDER = 'priority, run_at, id';

/**
 * Builds the claim statement for groups whose limits are above 0. Parameters: `@now` (NULL for
 * the database clock), `@workerId`, `@leaseMs`, then `@p1`, `@p2` … for each group's kinds and
 * queues (JSON arrays) and limits, and the capped and limited queues' limits, in order.
 * `othersPending` false leaves out the candidates of queues neither capped nor limited: the caller
 * found no pending row in them (see `SQLITE_OTHERS_PENDING`); `othersByQueue` reads them per
 * queue (see sqlite-claim-windows.ts).
 */
export function buildSqliteClaim(
  input: ClaimInput,
  groups: readonly ClaimGroup[],
  limited: readonly SqliteLimitedQueue[] = [],
  othersPending = true,
  othersByQueue = false,
): BuiltClaim {
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
  const capEntries = Object.entries(input.queueLimits ?? {});
  const instanceCaps = new Map(capEntries);
  const limits = new Map(limited.map((queue) => [queue.name, queue]));
  const own = [
    ...new Set([...capEntries.filter(([, cap]) => cap > 0).map(([queue]) => queue), ...limits.keys()]),
  ].filter((queue) => (limits.get(queue)?.room ?? 1) > 0);
  const apart = [...new Set([...capEntries.map(([queue]) => queue), ...limits.keys()])];
  // Without a due row of its kinds, a candidate's LIMIT is 0 and it reads nothing (see above).
  const gated = (kinds: string, limit: string): string =>
    `CASE WHEN EXISTS (SELECT 1 FROM nudge_jobs AS d INDEXED BY nudge_jobs_kind_claimable
                        WHERE d.status = 'PENDING' AND d.kind IN (SELECT value FROM json_each(${kinds}))
                          AND d.run_at <= ${SQLITE_NOW})
          THEN ${limit} ELSE 0 END`;
  const select = (g: number, inner: string): string =>
    `SELECT ${g} AS g, id, queue, priority, run_at, concurrency_key FROM (${inner})`;
  const candidate = (g: number, kinds: string, filter: string, limit: string): string =>
    select(
      g,
      `SELECT id, queue, priority, run_at, concurrency_key FROM nudge_jobs AS j
        WHERE status = 'PENDING' AND run_at <= ${SQLITE_NOW}
          AND +kind IN (SELECT value FROM json_each(${kinds}))
          ${filter} AND queue NOT IN (SELECT name FROM nudge_queues WHERE paused = 1)
        ORDER BY ${CLAIM_ORDER}
        LIMIT ${gated(kinds, limit)}`,
    );
  const offered: string[] = [];
  // The candidates of queues with a key limit: only their rows go through the key cut.
  const keyedOffered: string[] = [];
  // Candidate selects per group: a group with several may read more than its limit in all.
  const candidates = groups.map(() => 0);
  groups.forEach((group, g) => {
    const kinds = bind(JSON.stringify(group.kinds));
    const groupQueuesJson = group.queues === undefined ? undefined : bind(JSON.stringify(group.queues));
    const apartJson = apart.length === 0 ? undefined : bind(JSON.stringify(apart));
    const inQueues = (queue: string): string =>
      groupQueuesJson === undefined
        ? ''
        : `AND ${queue} IN (SELECT value FROM json_each(${groupQueuesJson}))`;
    const groupQueues = inQueues('queue');
    const notApart = (queue: string): string =>
      apartJson === undefined ? '' : `AND ${queue} NOT IN (SELECT value FROM json_each(${apartJson}))`;
    // Without a pending row outside the capped and limited queues, this candidate would read every
    // pending row of theirs in claim order to find none.
    if (othersByQueue && apart.length > 0) {
      const open = (queue: string): string =>
        `${inQueues(queue)} ${notApart(queue)} AND ${queue} NOT IN (SELECT name FROM nudge_queues WHERE paused = 1)`;
      offered.push(select(g, sqliteOthersByQueue(kinds, open, gated(kinds, bind(group.limit)))));
      candidates[g] = (candidates[g] ?? 0) + 1;
    } else if (othersPending || apart.length === 0) {
      offered.push(candidate(g, kinds, `${groupQueues} ${notApart('queue')}`, bind(group.limit)));
      candidates[g] = (candidates[g] ?? 0) + 1;
    }
    for (const queue of own) {
      const limit = limits.get(queue);
      const cap = instanceCaps.get(queue);
      // With a key limit, rows past the room are read too: some of them may share a key and be dropped.
      const room = limit === undefined || limit.keyConcurrency !== null ? group.limit : limit.room;
      const most = Math.min(cap ?? group.limit, group.limit, room);
      const keyFilter =
        limit?.keyConcurrency == null
          ? ''
          : `AND (j.concurrency_key IS NULL OR (${limit.keys === undefined ? '' : `j.concurrency_key NOT IN (SELECT value FROM json_each(${bind(limit.keys.full)})) AND `}(SELECT count(*) FROM nudge_jobs AS k WHERE k.status = 'RUNNING'
                   AND k.queue = j.queue AND k.concurrency_key = j.concurrency_key) < ${bind(limit.keyConcurrency)}))`;
      const queueParam = bind(queue);
      // A group that does not serve this limited queue has nothing to read in it.
      if (limit !== undefined && group.queues !== undefined && !group.queues.includes(queue)) continue;
      if (limit?.keyConcurrency != null && limit.keys?.byKey === true) {
        const inner = sqliteKeyedByKey(
          kinds,
          queueParam,
          bind(limit.keys.full),
          gated(kinds, bind(most)),
          bind(Math.min(most, limit.keyConcurrency)),
        );
        keyedOffered.push(select(g, inner));
        candidates[g] = (candidates[g] ?? 0) + 1;
        continue;
      }
      const filter = `AND queue = ${queueParam} ${limit === undefined ? '' : groupQueues} ${keyFilter}`;
      (limit?.keyConcurrency == null ? offered : keyedOffered).push(candidate(g, kinds, filter, bind(most)));
      candidates[g] = (candidates[g] ?? 0) + 1;
    }
  });
  // No candidate at all (every queue with rows is limited and has no room): claim nothing.
  if (offered.length === 0 && keyedOffered.length === 0)
    offered.push(
      'SELECT NULL AS g, NULL AS id, NULL AS queue, NULL AS priority, NULL AS run_at, NULL AS concurrency_key WHERE 0',
    );
  // Each cut only where it can drop a row: a key limit; an instance cap, or a cluster room
  // smaller than all the groups together could take (each candidate reads at most its group's
  // limit, and a limited queue's candidate without a key limit at most its room); a group with
  // more than one candidate.
  const total = groups.reduce((sum, group) => sum + group.limit, 0);
  const keyLimits = Object.fromEntries(
    limited.flatMap(({ name, keyConcurrency }) => (keyConcurrency === null ? [] : [[name, keyConcurrency]])),
  );
  const caps: Record<string, number> = Object.fromEntries(capEntries);
  for (const { name, room } of limited) caps[name] = Math.min(caps[name] ?? room, room);
  // A queue with no room has no candidate: no row of it to cut.
  const queueCut = capEntries.length > 0 || limited.some((queue) => queue.room > 0 && queue.room < total);
  const { prefix, kept } = sqliteClaimKeptRows({
    offered,
    keyedOffered,
    ...(Object.keys(keyLimits).length > 0 ? { keyCaps: bind(JSON.stringify(keyLimits)) } : {}),
    ...(queueCut ? { queueCaps: bind(JSON.stringify(caps)) } : {}),
    ...(candidates.some((n) => n > 1)
      ? { groupLimits: bind(JSON.stringify(groups.map((group) => group.limit))) }
      : {}),
  });
  // The WITH clause goes inside the IN: before the UPDATE it made every claim of a key-limited
  // queue cost half as much again.
  const text = `
UPDATE nudge_jobs
   SET status = 'RUNNING',
       version = version + 1,
       attempts = attempts + 1,
       claimed_by = @workerId,
       started_at = ${SQLITE_NOW},
       lease_expires_at = ${sqliteNowPlus('@leaseMs')}
 WHERE id IN (${prefix}${kept})
RETURNING id, version, kind, queue, payload, attempts,
          (julianday(coalesce(@now, 'now')) - julianday(run_at)) * 86400000.0 AS wait_ms, depends_on,
          CASE WHEN has_steps THEN ${SQLITE_CLAIMED_STEPS} END AS steps, trace_context`;
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
  /** JSON text of `ClaimedSteps`, `null` for a job without steps or signals. */
  steps: string | null;
  /** The job's trace context (JSON text), `null` for a job enqueued outside any trace. */
  trace_context: string | null;
}

interface LimitsRow {
  name: string;
  rate_limit: number | null;
  rate_interval_ms: number | null;
  key_concurrency: number | null;
  started: number;
  oldest_start: number | null;
  room: number;
}

/** The queues every group serves together, as a JSON array, or `null` when some group serves every queue. */
function servedJson(input: ClaimInput, groups: readonly ClaimGroup[]): string | null {
  if (groups.some((group) => group.queues === undefined)) return null;
  return JSON.stringify([
    ...new Set([...groups.flatMap((group) => group.queues ?? []), ...Object.keys(input.queueLimits ?? {})]),
  ]);
}

/**
 * Prepares the SQLite claim (a statement per shape of groups); see {@link Store.claim}. One
 * transaction reads the limited queues' room, claims, and logs the rate-limited queues' starts. A
 * limited queue that `held` says was held back is offered with no room (see
 * {@link SqliteHeldQueues}); the claim tells `held` what it found held back and what it took.
 */
export function createSqliteClaim(
  db: Database.Database,
  held: SqliteHeldQueues,
): (input: ClaimInput) => ClaimedJob[] {
  const statements = new Map<string, Database.Statement<Record<string, unknown>, ClaimRow>>();
  const othersPending = db.prepare<{ apart: string }, { found: number }>(SQLITE_OTHERS_PENDING);
  const readLimits = db.prepare<{ now: string | null; served: string | null }, LimitsRow>(SQLITE_LIMITS);
  const logStarts = db.prepare<{ now: string | null; name: string; started: number }>(SQLITE_LOG_STARTS);
  const pruneStarts = db.prepare<{ now: string | null; name: string }>(SQLITE_PRUNE_STARTS);
  const clockMs = db.prepare<{ now: string | null }, { ms: number }>(`SELECT ${SQLITE_NOW_MS} AS ms`);
  type Probe = Database.Statement<
    { now: string | null; queue: string; kinds: string; window: number },
    { read: number; matched: number }
  >;
  const duePending: Probe = db.prepare(SQLITE_DUE_PENDING);
  const dueKeyed: Probe = db.prepare(SQLITE_DUE_KEYED);
  // Whether `queue`'s first due rows (of them, those with a key when `probe` is `dueKeyed`) hold
  // one of `kinds`: `undefined` when a full window holds none (rows further on may).
  const due = (probe: Probe, now: string | null, queue: string, kinds: string): boolean | undefined => {
    const seen = probe.get({ now, queue, kinds, window: WINDOW });
    if ((seen?.matched ?? 0) > 0) return true;
    return (seen?.read ?? 0) < WINDOW ? false : undefined;
  };
  const windows = prepareWindowProbes(db);
  const claim = db.transaction((input: ClaimInput): { rows: ClaimRow[]; limited?: LimitedClaim } => {
    const groups = input.groups.filter((group) => group.limit > 0 && group.kinds.length > 0);
    if (groups.length === 0) return { rows: [] };
    const now = toSqliteTime(input.now);
    const limits = readLimits.all({ now, served: servedJson(input, groups) });
    const nowMs = limits.length === 0 ? 0 : (clockMs.get({ now })?.ms ?? Date.now());
    const skipped = new Set(
      limits.filter((row) => row.rate_limit === null && held.skips(row.name, nowMs)).map((row) => row.name),
    );
    // A key limit binds only rows with a key: with none due of these kinds, the claim needs
    // neither the key filter nor the key cut (both sort or count per row).
    const kinds = JSON.stringify([...new Set(groups.flatMap((group) => group.kinds))]);
    const limited = limits.map((row): SqliteLimitedQueue => {
      if (skipped.has(row.name)) return { name: row.name, room: 0, keyConcurrency: null };
      // Unknown counts as keyed: the key filter is only skipped where no keyed row can be taken.
      const keyed = row.key_concurrency !== null && due(dueKeyed, now, row.name, kinds) !== false;
      if (!keyed || row.key_concurrency === null)
        return { name: row.name, room: row.room, keyConcurrency: null };
      const keys = windows.keys({ now, queue: row.name, keyLimit: row.key_concurrency, kinds });
      return { name: row.name, room: row.room, keyConcurrency: row.key_concurrency, keys };
    });
    const apart = [
      ...new Set([...Object.keys(input.queueLimits ?? {}), ...limited.map((queue) => queue.name)]),
    ];
    const apartJson = JSON.stringify(apart);
    const others = apart.length === 0 || othersPending.get({ apart: apartJson })?.found === 1;
    const byQueue =
      others &&
      limited.length > 0 &&
      windows.othersByQueue({ now, kinds, served: servedJson(input, groups), apart: apartJson });
    const { text, params } = buildSqliteClaim(input, groups, limited, others, byQueue);
    let statement = statements.get(text);
    if (!statement) {
      statement = db.prepare<Record<string, unknown>, ClaimRow>(text);
      statements.set(text, statement);
    }
    const rows = statement.all(params);
    if (limits.length === 0) return { rows };
    const rates: RateRow[] = [];
    for (const row of limits) {
      if (row.rate_limit === null || row.rate_interval_ms === null) continue;
      rates.push([row.name, row.rate_limit, row.rate_interval_ms, row.started, row.oldest_start]);
      const started = rows.filter((job) => job.queue === row.name).length;
      if (started === 0) continue;
      logStarts.run({ now, name: row.name, started });
      pruneStarts.run({ now, name: row.name });
    }
    const jobs = rows.map(toClaimedJob);
    const takenFrom = new Map<string, number>();
    for (const job of jobs) takenFrom.set(job.queue, (takenFrom.get(job.queue) ?? 0) + 1);
    // Held back: a group with room left may still find a due job of its kinds in the queue, by its
    // first due rows (the claimed rows are RUNNING by now, in this transaction). Asked only where a limit
    // could have bound: the queue's room is used up (any due row), or it has a key limit (a due row
    // with a key); otherwise the claim read every due row of the queue it could take.
    const openKinds = JSON.stringify([
      ...new Set(
        groups
          .filter((group) => jobs.filter((job) => group.kinds.includes(job.kind)).length < group.limit)
          .flatMap((group) => group.kinds),
      ),
    ]);
    const heldBack = limited
      .filter((queue) => {
        if (openKinds === '[]') return false;
        if (skipped.has(queue.name)) return true;
        const probe = (takenFrom.get(queue.name) ?? 0) >= queue.room ? duePending : dueKeyed;
        if (probe === dueKeyed && queue.keyConcurrency === null) return false;
        // Unknown (a full window of other kinds) counts as held: reported, the engine keeps looking
        // at the queue; skipped, the queue waits at most HELD_QUEUE_SKIP_MS.
        return due(probe, now, queue.name, openKinds) !== false;
      })
      .map((queue) => queue.name);
    // Held back: found so above, or (a claim that filled its groups asks nothing) nothing of it
    // taken while it had no room, or while its first due rows were all of keys at their limit.
    limited.forEach((queue, at) => {
      if (limits[at]?.rate_limit !== null || skipped.has(queue.name)) return;
      const blocked = !takenFrom.has(queue.name) && (queue.room === 0 || queue.keys?.blocked === true);
      if (blocked || heldBack.includes(queue.name)) held.hold(queue.name, nowMs);
    });
    const limitedNames = new Set(limits.map((row) => row.name));
    for (const job of jobs) if (limitedNames.has(job.queue)) held.claimed(job.id, job.queue);
    return { rows, limited: limitsFeedback(heldBack, rates, jobs, nowMs) };
  });
  return (input) => {
    const { rows, limited } = claim.immediate(input);
    // After the commit: the caller's callback is no part of the transaction.
    if (limited) input.onLimited?.(limited);
    return rows.map(toClaimedJob);
  };
}

const toClaimedJob = (row: ClaimRow): ClaimedJob => ({
  id: row.id,
  version: row.version,
  kind: row.kind,
  queue: row.queue,
  payloadJson: row.payload,
  attempt: row.attempts,
  waitMs: Math.max(0, row.wait_ms),
  ...(row.depends_on === null ? {} : { dependsOn: JSON.parse(row.depends_on) as number[] }),
  ...(row.steps === null ? {} : { stepsJson: row.steps }),
  ...(row.trace_context === null ? {} : { traceContext: row.trace_context }),
});
