import type { Fault } from './checks.js';
import { FLOW_STEPS } from './durable-handlers.js';
import type { SignalSend } from './signal-producer.js';
import type { StepRun, WaitReturn } from './step-ledger.js';

/** A step row as the durable-steps checks read it. Times are epoch ms by the database clock. */
export interface StepRowRead {
  readonly jobId: number;
  readonly name: string;
  readonly status: string;
  /** The stored result, parsed. */
  readonly result: unknown;
  readonly endedAt: number | null;
  /** A wait's deadline. */
  readonly wakeAt: number | null;
}

/** A stored signal, in insert order. */
export interface SignalRowRead {
  readonly jobId: number;
  readonly token: string;
}

/** What {@link analyseDurable} reads. */
export interface DurableEvidence {
  /** Job ids and statuses at the end. */
  readonly jobs: ReadonlyMap<number, string>;
  readonly steps: readonly StepRowRead[];
  readonly signals: readonly SignalRowRead[];
  /** The tokens of the application rows the signals' transactions wrote. */
  readonly approvals: readonly string[];
  readonly runs: readonly StepRun[];
  readonly waits: readonly WaitReturn[];
  readonly sends: readonly SignalSend[];
  readonly faults: readonly Fault[];
  /** When each attempt was claimed, by `<jobId>:<version>`, epoch ms (the audit trail). */
  readonly claims: ReadonlyMap<string, number>;
}

/** What the durable-steps checks found. */
export interface DurableFindings {
  readonly checks: Record<string, boolean>;
  readonly notes: Record<string, number>;
  /** Worst time from a fault to the re-run of a step it caught, in ms; `null` when none was re-run. */
  readonly worstRecoveryMs: number | null;
  /** Jobs with a step re-run after a fault / with one no fault explains. */
  readonly jobsRerunExplained: number;
  readonly jobsRerunUnexplained: number;
  /** One line per violation, for the failure message. */
  readonly details: string[];
}

/** The signal wait's step name. */
const WAIT_STEP = 'approve';

/**
 * Whether fault `f` caught run `run`: a kill (or crash) of its process after the run started; or
 * a stop of its process after the run started, or after its attempt was claimed (`claimedAt`): a
 * stopped process runs its handlers on when it resumes, and an attempt claimed before a stop of 3
 * leases lost its lease meanwhile, so its steps, however late they start, run again elsewhere.
 */
function catches(f: Fault, run: StepRun, claimedAt: number | undefined): boolean {
  if (f.pid !== run.pid) return false;
  if (f.kind === 'kill' || f.kind === 'crash') return f.at >= run.at;
  if (f.kind === 'stop') return f.at >= run.at || (claimedAt !== undefined && claimedAt <= f.at);
  return false;
}

/** `value` as JSON with sorted keys (PostgreSQL's jsonb orders keys its own way). */
function canonical(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : typeof v === 'object' && v !== null
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sorted(value)) ?? 'null';
}

/**
 * Checks the durable-steps scenario's guarantees against what committed (job, step and signal
 * rows, the application's rows) and what ran (the step ledger, the producer's log):
 * - every job `SUCCEEDED`, each of its steps stored `SUCCEEDED` with the token of a run the
 *   ledger saw;
 * - a finished step never runs again: no run of a step starts after its row was recorded
 *   (`ended_at`, the database clock, on the same machine as the ledger's);
 * - every re-run of a step follows a run of it that a kill or stop caught (see `catches`; the
 *   fault came before the re-run): at most one re-run per step per fault, none without one;
 * - a wait resolves once: every attempt past it got the same answer, the one `apply` stored;
 * - signals: the stored ones are exactly the committed sends (and the application rows of their
 *   transactions), so no rolled-back or refused send is stored or returned; and none is lost:
 *   a wait that returned a payload returned its job's first committed signal, and a wait that
 *   returned `null` timed out (its step row `TIMED_OUT`) before any of its job's signals
 *   committed (every committed send's COMMIT returned after the wait's deadline).
 */
export function analyseDurable(e: DurableEvidence): DurableFindings {
  const details: string[] = [];
  const fail = (line: string) => void (details.length < 50 && details.push(line));
  const rows = new Map(e.steps.map((row) => [`${row.jobId}/${row.name}`, row]));
  const runsOf = new Map<string, StepRun[]>();
  for (const run of e.runs) {
    const key = `${run.jobId}/${run.step}`;
    runsOf.set(key, [...(runsOf.get(key) ?? []), run]);
  }
  const tokens = new Set(e.runs.map((run) => run.token));
  const claimedAt = (run: StepRun) => e.claims.get(`${run.jobId}:${run.version}`);

  let unfinished = 0;
  let unrecorded = 0;
  let ranAgain = 0;
  for (const [id, status] of e.jobs) {
    if (status !== 'SUCCEEDED') {
      unfinished += 1;
      fail(`job ${id} ended ${status}`);
    }
    for (const step of FLOW_STEPS) {
      const row = rows.get(`${id}/${step}`);
      const token = (row?.result as { token?: string } | null | undefined)?.token;
      if (row?.status !== 'SUCCEEDED' || token === undefined || !tokens.has(token)) {
        unrecorded += 1;
        fail(
          `job ${id} step ${step}: stored ${row?.status ?? 'nothing'} with token ${token}, which no run in the ledger has`,
        );
        continue;
      }
      for (const run of runsOf.get(`${id}/${step}`) ?? []) {
        if (row.endedAt === null || run.at <= row.endedAt) continue;
        ranAgain += 1;
        fail(
          `job ${id} step ${step}: run ${run.token} started ${run.at - row.endedAt} ms after the step was recorded`,
        );
      }
    }
  }

  // Re-runs and the faults that caught what they re-ran.
  let reRuns = 0;
  let unexplained = 0;
  let repeatedPerFault = 0;
  let worstRecoveryMs: number | null = null;
  const perFault = new Set<string>();
  const rerunJobs = new Set<number>();
  const unexplainedJobs = new Set<number>();
  for (const [key, runs] of runsOf) {
    for (let i = 1; i < runs.length; i += 1) {
      const [run, next] = [runs[i - 1]!, runs[i]!];
      reRuns += 1;
      rerunJobs.add(next.jobId);
      const fault = e.faults.findIndex((f) => f.at <= next.at && catches(f, run, claimedAt(run)));
      if (fault < 0) {
        unexplained += 1;
        unexplainedJobs.add(next.jobId);
        fail(`step ${key}: run ${next.token} re-ran run ${run.token}, which no kill or stop caught`);
        continue;
      }
      const caught = `${fault}/${key}`;
      if (perFault.has(caught)) {
        repeatedPerFault += 1;
        fail(`step ${key}: re-run twice after one ${e.faults[fault]!.kind}`);
      }
      perFault.add(caught);
      // Recovery is timed for a run the fault caught in flight, as checks.ts times attempts; a
      // run a stopped process started after it resumed was late, not in flight.
      const at = e.faults[fault]!.at;
      if (run.at <= at) worstRecoveryMs = Math.max(worstRecoveryMs ?? 0, next.at - at);
    }
  }
  // Caught by a fault (see catches), and not the run its step's row holds.
  const faults = e.faults.filter((f) => f.kind === 'kill' || f.kind === 'stop');
  const recorded = (run: StepRun) =>
    (rows.get(`${run.jobId}/${run.step}`)?.result as { token?: string } | null | undefined)?.token ===
    run.token;
  const inFlight = e.runs.filter(
    (run) => !recorded(run) && faults.some((f) => catches(f, run, claimedAt(run))),
  ).length;

  // What each wait returned, once.
  const waitsOf = new Map<number, WaitReturn[]>();
  for (const wait of e.waits) waitsOf.set(wait.jobId, [...(waitsOf.get(wait.jobId) ?? []), wait]);
  let twoAnswers = 0;
  for (const [id, waits] of waitsOf) {
    const applied = (rows.get(`${id}/apply`)?.result as { keep?: unknown } | undefined)?.keep;
    const answers = new Set([
      ...waits.map((w) => canonical(JSON.parse(w.payloadJson))),
      canonical(applied ?? null),
    ]);
    if (answers.size === 1) continue;
    twoAnswers += 1;
    fail(`job ${id}: its wait returned ${[...answers].join(' and ')}`);
  }

  // Signals: stored exactly when committed, and none lost.
  const committed = e.sends.filter((s) => s.outcome === 'committed');
  const committedTokens = new Set(committed.map((s) => s.token));
  const stored = new Set(e.signals.map((s) => s.token));
  const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>) =>
    a.size === b.size && [...a].every((x) => b.has(x));
  const neverCommitted = new Set(e.sends.filter((s) => s.outcome !== 'committed').map((s) => s.token));
  let seenUncommitted = 0;
  for (const wait of e.waits) {
    const token = (JSON.parse(wait.payloadJson) as { token?: string } | null)?.token;
    if (token !== undefined && neverCommitted.has(token)) {
      seenUncommitted += 1;
      fail(`job ${wait.jobId}: its wait returned ${token}, whose transaction did not commit`);
    }
  }
  const firstSignal = new Map<number, string>();
  for (const s of e.signals) if (!firstSignal.has(s.jobId)) firstSignal.set(s.jobId, s.token);
  let lost = 0;
  let returnedPayload = 0;
  let returnedNull = 0;
  for (const id of e.jobs.keys()) {
    const answer = (rows.get(`${id}/apply`)?.result as { keep?: { token?: string } | null } | undefined)
      ?.keep;
    const first = firstSignal.get(id);
    if (answer) {
      returnedPayload += 1;
      if (answer.token !== first) {
        lost += 1;
        fail(`job ${id}: its wait returned ${answer.token}, but its first committed signal is ${first}`);
      }
      continue;
    }
    returnedNull += 1;
    const wait = rows.get(`${id}/${WAIT_STEP}`);
    const deadline = wait?.status === 'TIMED_OUT' ? wait.wakeAt : null;
    const early = committed.filter((s) => s.jobId === id && (deadline === null || s.at < deadline));
    if (early.length > 0) {
      lost += early.length;
      fail(
        `job ${id}: its wait returned null (step ${wait?.status}, deadline ${deadline}), but ${early.map((s) => `${s.token} committed at ${s.at}`).join(', ')}`,
      );
    }
  }

  const checks = {
    'every job SUCCEEDED': unfinished === 0,
    'each step stored SUCCEEDED by a run the ledger saw': unrecorded === 0,
    'a finished step never ran again (no run started after its step was recorded)': ranAgain === 0,
    'every re-run of a step follows a run a kill or stop caught, at most once per fault':
      unexplained === 0 && repeatedPerFault === 0,
    'faults caught steps in flight, which ran again': inFlight > 0 && reRuns > 0,
    'each wait returned one answer to every attempt': twoAnswers === 0,
    'stored signals = committed sends = the application rows of their transactions':
      sameSet(stored, committedTokens) && sameSet(new Set(e.approvals), committedTokens),
    'no rolled-back or refused signal was returned': seenUncommitted === 0,
    '0 lost signals (a wait returned its first committed signal, or timed out before any committed)':
      lost === 0,
    'some waits got a signal, some timed out': returnedPayload > 0 && returnedNull > 0,
  };
  const notes = {
    kills: faults.filter((f) => f.kind === 'kill').length,
    stops: faults.filter((f) => f.kind === 'stop').length,
    'steps in flight at faults': inFlight,
    're-runs': reRuns,
    'finished steps run again': ranAgain,
    'signals committed': committed.length,
    'signals rolled back': e.sends.filter((s) => s.outcome === 'rolled back').length,
    'signals refused (job finished)': e.sends.filter((s) => s.outcome === 'refused').length,
    'waits returned a signal': returnedPayload,
    'waits timed out': returnedNull,
    'lost signals': lost,
  };
  return {
    checks,
    notes,
    worstRecoveryMs,
    jobsRerunExplained: [...rerunJobs].filter((id) => !unexplainedJobs.has(id)).length,
    jobsRerunUnexplained: unexplainedJobs.size,
    details,
  };
}
