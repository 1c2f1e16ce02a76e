// Peaks of a queue's running jobs and starts, replayed from the audit of status changes.
import type { AuditRow } from './audit.js';

/** The most rows of one group `RUNNING` at once, replaying the audit in its order. */
export function peakRunning(
  audit: readonly AuditRow[],
  groupOf: (jobId: number) => string | undefined,
): number {
  const running = new Map<string, number>();
  let peak = 0;
  for (const row of audit) {
    const group = groupOf(row.jobId);
    if (group === undefined || row.oldStatus === row.newStatus) continue;
    const step = (row.newStatus === 'RUNNING' ? 1 : 0) - (row.oldStatus === 'RUNNING' ? 1 : 0);
    const now = (running.get(group) ?? 0) + step;
    running.set(group, now);
    peak = Math.max(peak, now);
  }
  return peak;
}

/** The most starts within any window of `intervalMs` beginning at a start. */
export function peakStarts(starts: readonly number[], intervalMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let peak = 0;
  let end = 0;
  for (let i = 0; i < sorted.length; i += 1) {
    while (end < sorted.length && (sorted[end] ?? 0) < (sorted[i] ?? 0) + intervalMs) end += 1;
    peak = Math.max(peak, end - i);
  }
  return peak;
}
