import type pg from 'pg';
import { createHash } from 'node:crypto';
import type { ClaimGroup, ClaimInput, ClaimedJob } from '../store.js';
import { buildPgClaim } from './pg-claim-sql.js';
import { limitsFeedback, type RateRow } from '../claim-limits-feedback.js';
import { limitedWant, type LimitedLock, type LimitedQueueHint } from './pg-limited-hint.js';

/**
 * A claimed row as the statement encodes it:
 * `[id, version, kind, queue, attempts, payloadJson, waitMs, dependsOn, stepsJson, traceContext]`.
 */
type ClaimTuple = [
  number,
  number,
  string,
  string,
  number,
  string,
  number,
  number[] | null,
  string | null,
  string | null,
];

/**
 * A locked queue as a claim found it: `[name, free, shared, room, shareSize]`: how many more of its
 * jobs may start (at least), whether the claim shared the queue, how many it was allowed to take,
 * and the most a claim may take while it shares the queue (`null`: no such bound; migration 0018).
 */
type FreeRow = [string, number, boolean, number, number | null];

interface ClaimRow {
  jobs: string;
  ready: string[];
  held: string[];
  rates: string | null;
  /** Each locked queue's {@link FreeRow} as JSON text (NULL without any). */
  frees: string | null;
  now_ms: number;
}

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

/** The queues every group serves together, or `null` when some group serves every queue. */
function servedQueues(input: ClaimInput, groups: readonly ClaimGroup[]): string[] | null {
  if (groups.some((group) => group.queues === undefined)) return null;
  return [
    ...new Set([...groups.flatMap((group) => group.queues ?? []), ...Object.keys(input.queueLimits ?? {})]),
  ];
}

async function runClaim(
  pool: pg.Pool,
  input: ClaimInput,
  groups: readonly ClaimGroup[],
  limited: readonly LimitedLock[],
): Promise<ClaimRow> {
  const { text, values } = buildPgClaim(input, groups, limited, servedQueues(input, groups));
  // One statement, one round trip: it locks the limited queues itself (see buildPgClaim).
  const { rows } = await pool.query<ClaimRow>({ name: statementName(text), text, values });
  if (!rows[0]) throw new Error('the claim statement returned no row');
  return rows[0];
}

const toClaimedJob = ([
  id,
  version,
  kind,
  queue,
  attempt,
  payloadJson,
  waitMs,
  dependsOn,
  stepsJson,
  traceContext,
]: ClaimTuple): ClaimedJob => ({
  id,
  version,
  kind,
  queue,
  payloadJson,
  attempt,
  waitMs: Math.max(0, Number(waitMs)),
  ...(dependsOn === null ? {} : { dependsOn }),
  ...(stepsJson === null ? {} : { stepsJson }),
  ...(traceContext === null ? {} : { traceContext }),
});

/** What is left of each group's and capped queue's limit after `jobs` were claimed. */
function remaining(
  input: ClaimInput,
  groups: readonly ClaimGroup[],
  jobs: readonly ClaimedJob[],
): ClaimInput {
  const left = groups.map((group) => ({
    ...group,
    limit: group.limit - jobs.filter((job) => group.kinds.includes(job.kind)).length,
  }));
  const queueLimits =
    input.queueLimits &&
    Object.fromEntries(
      Object.entries(input.queueLimits).map(([queue, cap]) => [
        queue,
        Math.max(0, cap - jobs.filter((job) => job.queue === queue).length),
      ]),
    );
  return { ...input, groups: left, ...(queueLimits ? { queueLimits } : {}) };
}

/**
 * The PostgreSQL claim, a named prepared statement per shape of groups; see {@link Store.claim}.
 * Limited queues the last claim of these kinds saw ready are locked by the statement itself.
 * Another round trip (two at most) claims at once from a limited queue this claim finds ready for
 * the first time, or from one it asked to share and found too little room in to prove it may
 * (the next asks for the queue alone; see {@link LimitedQueueHint}).
 */
export async function pgClaim(
  pool: pg.Pool,
  input: ClaimInput,
  hint: LimitedQueueHint,
): Promise<ClaimedJob[]> {
  const jobs: ClaimedJob[] = [];
  const seen = new Set<string>();
  const held = new Set<string>();
  // Per rate-limited queue, as the latest round read it, with that round's starts added.
  const rates = new Map<string, RateRow>();
  let request = input;
  let nowMs = 0;
  for (let round = 0; round < 3; round += 1) {
    const groups = request.groups.filter((group) => group.limit > 0 && group.kinds.length > 0);
    if (groups.length === 0) break;
    const kinds = [...new Set(groups.flatMap((group) => group.kinds))].sort().join('\u0000');
    const limited = hint.get(kinds);
    const row = await runClaim(pool, request, groups, limited);
    const claimed = (JSON.parse(row.jobs) as ClaimTuple[]).map(toClaimedJob);
    jobs.push(...claimed);
    nowMs = row.now_ms;
    for (const [name, limit, intervalMs, started, oldest] of JSON.parse(row.rates ?? '[]') as RateRow[]) {
      const startedNow = claimed.filter((job) => job.queue === name).length;
      rates.set(name, [name, limit, intervalMs, started + startedNow, oldest]);
    }
    for (const lock of limited) held.delete(lock.name);
    for (const queue of [...limited.map((lock) => lock.name), ...row.ready]) seen.add(queue);
    for (const queue of row.held) held.add(queue);
    hint.set(kinds, row.ready);
    let refused = false;
    for (const [queue, free, shared, room, shareSize] of JSON.parse(row.frees ?? '[]') as FreeRow[]) {
      hint.setRoom(queue, free, limitedWant(request, groups, queue), shareSize);
      refused ||= shared && room === 0;
    }
    const fresh = row.ready.some((queue) => !limited.some((lock) => lock.name === queue));
    if (!fresh && !refused) break;
    request = remaining(request, groups, claimed);
  }
  if (seen.size > 0) input.onLimited?.(limitsFeedback([...held], [...rates.values()], [], nowMs));
  return jobs;
}
