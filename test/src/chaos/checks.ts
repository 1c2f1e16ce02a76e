import type { AuditRow } from './audit.js';
import type { LedgerAttempt } from './ledger.js';

/** What the harness did to an instance's process, and when (ms since the epoch). */
export interface Fault {
  readonly pid: number;
  readonly at: number;
  /** `kill` (SIGKILL), `stop` (SIGSTOP), `partition` (blackholed), `crash` (it died on its own), `terminate` (SIGTERM). */
  readonly kind: 'kill' | 'stop' | 'partition' | 'crash' | 'terminate';
  /**
   * For `stop`: when the process was resumed (SIGCONT). A job it claimed before the stop may start
   * its handler only after this, so an attempt starting up to {@link RESUME_GRACE_MS} later counts
   * as interrupted by the stop too.
   */
  until?: number;
  /**
   * For `kill`: when the process was seen to exit. The fault's `at` is taken just before the
   * signal is sent, so an attempt may start in between; any attempt that started before the
   * exit was cut short by it.
   */
  exitedAt?: number;
}

/** How long after a stopped process resumes its attempts still count as interrupted by the stop, in ms. */
const RESUME_GRACE_MS = 1_000;

/** A job row as the checks read it at the end of a scenario. */
export interface FinalRow {
  readonly id: number;
  readonly status: string;
  readonly version: number;
  /** The stored result, parsed. */
  readonly result: unknown;
  /** RUNNING with its lease already expired by the database clock. */
  readonly leaseExpired: boolean;
}

/** What {@link analyse} reads. */
export interface Evidence {
  readonly accepted: readonly number[];
  readonly rows: readonly FinalRow[];
  readonly audit: readonly AuditRow[];
  readonly ledger: readonly LedgerAttempt[];
  readonly faults: readonly Fault[];
  /** Jobs that run more than once by design (they fail and retry): not duplicates. */
  readonly repeating?: ReadonlySet<number>;
}

/** The counts of a scenario's table row. */
export interface Findings {
  readonly lost: number;
  readonly fencingViolations: number;
  readonly duplicatesExplained: number;
  readonly duplicatesUnexplained: number;
  readonly worstRecoveryMs: number | null;
  /** One line per violation, for the failure message. */
  readonly details: string[];
}

const TERMINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);
/** Faults that can leave an attempt's lease to expire while its handler runs or after it ended. */
const INTERRUPTING = new Set<Fault['kind']>(['kill', 'stop', 'partition', 'crash']);

/**
 * Checks the guarantees against what committed (rows and the audit trail) and what ran (the
 * ledger):
 * - lost: an accepted job with no row, or a row left RUNNING past its lease;
 * - fencing: a job with more than one terminal transition, one version reached twice, or a
 *   success whose stored result was written by an attempt of another version (or by none that
 *   returned);
 * - duplicates: a job executed again after an execution that did not fail; explained when every
 *   such earlier execution's process met an interrupting fault after it started;
 * - recovery: for each interrupting fault, the time until each job it caught (started by the
 *   faulted process before the fault, run again after it) started again.
 */
export function analyse(evidence: Evidence): Findings {
  const details: string[] = [];
  const rows = new Map(evidence.rows.map((row) => [row.id, row]));
  let lost = 0;
  for (const id of evidence.accepted) {
    const row = rows.get(id);
    if (!row) details.push(`job ${id}: accepted, but no row`);
    else if (row.status === 'RUNNING' && row.leaseExpired) details.push(`job ${id}: RUNNING past its lease`);
    else continue;
    lost += 1;
  }

  let fencingViolations = 0;
  const terminal = new Map<number, number>();
  const versions = new Set<string>();
  for (const change of evidence.audit) {
    if (TERMINAL.has(change.newStatus) && !TERMINAL.has(change.oldStatus)) {
      terminal.set(change.jobId, (terminal.get(change.jobId) ?? 0) + 1);
    }
    // A retry (by command) reopens a finished job: its next outcome is a new one, not a second.
    if (TERMINAL.has(change.oldStatus) && !TERMINAL.has(change.newStatus)) {
      terminal.set(change.jobId, (terminal.get(change.jobId) ?? 0) - 1);
    }
    if (change.newVersion !== change.oldVersion) {
      const key = `${change.jobId}:${change.newVersion}`;
      if (versions.has(key)) {
        fencingViolations += 1;
        details.push(`job ${change.jobId}: version ${change.newVersion} reached twice`);
      }
      versions.add(key);
    }
  }
  for (const [id, count] of terminal) {
    if (count <= 1) continue;
    fencingViolations += 1;
    details.push(`job ${id}: ${count} terminal outcomes committed`);
  }
  const returned = new Set(evidence.ledger.filter((a) => a.ok).map((a) => `${a.id}:${a.version}`));
  for (const row of evidence.rows) {
    if (row.status !== 'SUCCEEDED') continue;
    const written = (row.result as { version?: unknown } | null)?.version;
    if (written === row.version && returned.has(`${row.id}:${row.version}`)) continue;
    fencingViolations += 1;
    details.push(
      `job ${row.id}: SUCCEEDED at version ${row.version} with a result of version ${String(written)}`,
    );
  }

  const byJob = new Map<number, LedgerAttempt[]>();
  for (const attempt of evidence.ledger) {
    const list = byJob.get(attempt.id);
    if (list) list.push(attempt);
    else byJob.set(attempt.id, [attempt]);
  }
  const interrupted = (attempt: LedgerAttempt): boolean =>
    evidence.faults.some(
      (f) =>
        f.pid === attempt.pid &&
        INTERRUPTING.has(f.kind) &&
        ((f.exitedAt ?? f.at) >= attempt.startedAt ||
          (f.kind === 'stop' && f.until !== undefined && attempt.startedAt <= f.until + RESUME_GRACE_MS)),
    );
  let duplicatesExplained = 0;
  let duplicatesUnexplained = 0;
  for (const [id, attempts] of byJob) {
    if (evidence.repeating?.has(id)) continue;
    let repeated = false;
    let explained = true;
    for (let i = 1; i < attempts.length; i += 1) {
      const earlier = attempts.slice(0, i).filter((a) => a.ok !== false);
      if (earlier.length === 0) continue;
      repeated = true;
      if (!earlier.every(interrupted)) explained = false;
    }
    if (!repeated) continue;
    if (explained) duplicatesExplained += 1;
    else {
      duplicatesUnexplained += 1;
      // The job's committed changes say whether a sweep took it back (a lease that lapsed without
      // a fault to its process) or a claim overlapped one still held.
      const changes = evidence.audit
        .filter((change) => change.jobId === id)
        .map((c) => `${c.oldStatus}→${c.newStatus} v${c.oldVersion}→v${c.newVersion} at ${c.at}`);
      details.push(
        `job ${id}: ran ${attempts.length} times (${attempts
          .map((a) => `v${a.version} pid ${a.pid} ${a.startedAt}–${a.endedAt ?? 'no end'}`)
          .join(', ')}) without a fault to explain it; its changes: ${changes.join(', ')}`,
      );
    }
  }

  let worstRecoveryMs: number | null = null;
  for (const fault of evidence.faults) {
    if (!INTERRUPTING.has(fault.kind)) continue;
    for (const attempt of evidence.ledger) {
      // Caught by the fault: started before it, and run again after it (an attempt that had
      // returned but whose outcome was not written yet counts too).
      if (attempt.pid !== fault.pid || attempt.startedAt > fault.at) continue;
      const next = byJob
        .get(attempt.id)
        ?.find((a) => a.version > attempt.version && a.startedAt >= fault.at && a.pid !== fault.pid);
      if (!next) continue;
      worstRecoveryMs = Math.max(worstRecoveryMs ?? 0, next.startedAt - fault.at);
    }
  }
  return { lost, fencingViolations, duplicatesExplained, duplicatesUnexplained, worstRecoveryMs, details };
}
