import ms from 'ms';
import { TERMINAL_STATUSES, type JobStatus, type TerminalStatus } from '@nudge/core';

/** How long finished jobs of each status are kept, in ms; `null` keeps them forever. */
export type RetentionAges = Readonly<Record<TerminalStatus, number | null>>;

/** How long finished jobs are kept before the pruner deletes them. */
export interface RetentionPolicy {
  /** Age of a finished job by status, in ms after `finished_at`; `null` keeps it. */
  readonly byStatus: RetentionAges;
  /** Per kind, ages that replace `byStatus` for the statuses they name. */
  readonly byKind: ReadonlyMap<string, Partial<RetentionAges>>;
}

const DAY_MS = 86_400_000;

/**
 * Kept when nothing is configured: `SUCCEEDED` 1 day (long enough to read a result or answer an
 * idempotent retry), `FAILED` and `CANCELLED` 14 days (time for someone to look and retry).
 */
export const DEFAULT_RETENTION: RetentionPolicy = {
  byStatus: { SUCCEEDED: DAY_MS, FAILED: 14 * DAY_MS, CANCELLED: 14 * DAY_MS },
  byKind: new Map(),
};

/** Keeps every finished job: nothing is pruned. */
export const KEEP_EVERYTHING: RetentionPolicy = {
  byStatus: { SUCCEEDED: null, FAILED: null, CANCELLED: null },
  byKind: new Map(),
};

/** The longest age accepted, in ms: 10 years. */
const MAX_AGE_MS = 3650 * DAY_MS;

/**
 * Parses a retention list such as `SUCCEEDED=1d,FAILED=14d,report:SUCCEEDED=30d,audit:FAILED=keep`
 * (the text form of the engine's `retention` option, which the server reads from `NUDGE_RETENTION`)
 * over {@link DEFAULT_RETENTION}: entries separated by commas, each `STATUS=AGE` or
 * `KIND:STATUS=AGE`, where `STATUS` is `SUCCEEDED`, `FAILED` or `CANCELLED` and `AGE` is a
 * duration in the `ms` package's format (`0`, `90s`, `15m`, `12h`, `7d`) or `keep`.
 * Statuses not named keep their default; a kind's entries override its status's age for it only.
 * An empty text is the default policy.
 * @throws RangeError naming the entry at fault (no `=`, an unknown status, a bad or negative age,
 *   an age over 10 years, an entry given twice)
 */
export function parseRetention(text: string): RetentionPolicy {
  const byStatus: Record<TerminalStatus, number | null> = { ...DEFAULT_RETENTION.byStatus };
  const byKind = new Map<string, Partial<Record<TerminalStatus, number | null>>>();
  const seen = new Set<string>();
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const equals = entry.lastIndexOf('=');
    if (equals === -1) throw new RangeError(`retention: "${entry}" must be STATUS=AGE or KIND:STATUS=AGE`);
    const target = entry.slice(0, equals).trim();
    const colon = target.lastIndexOf(':');
    const kind = colon === -1 ? undefined : target.slice(0, colon);
    const status = target.slice(colon + 1);
    if (!isTerminalStatus(status)) {
      throw new RangeError(
        `retention: "${entry}" names status "${status}"; use ${TERMINAL_STATUSES.join(', ')}`,
      );
    }
    if (kind === '') throw new RangeError(`retention: "${entry}" has an empty kind before ':'`);
    const key = `${kind ?? ''}:${status}`;
    if (seen.has(key)) throw new RangeError(`retention: "${target}" is given twice`);
    seen.add(key);
    const age = parseAge(entry, entry.slice(equals + 1).trim());
    if (kind === undefined) byStatus[status] = age;
    else byKind.set(kind, { ...byKind.get(kind), [status]: age });
  }
  return { byStatus, byKind };
}

/** How long jobs of `kind` in `status` are kept under `policy`, in ms; `null` keeps them. */
export function retentionAgeMs(policy: RetentionPolicy, status: TerminalStatus, kind: string): number | null {
  const override = policy.byKind.get(kind)?.[status];
  return override === undefined ? policy.byStatus[status] : override;
}

/** `policy` as the text {@link parseRetention} reads, such as `SUCCEEDED=1d,FAILED=14d,CANCELLED=keep`. */
export function describeRetention(policy: RetentionPolicy): string {
  const age = (value: number | null | undefined): string => (value == null ? 'keep' : ms(value));
  const entries = TERMINAL_STATUSES.map(
    (status) => `${status}=${age(policy.byStatus[status as TerminalStatus])}`,
  );
  for (const [kind, ages] of policy.byKind) {
    for (const [status, value] of Object.entries(ages)) entries.push(`${kind}:${status}=${age(value)}`);
  }
  return entries.join(',');
}

function isTerminalStatus(status: string): status is TerminalStatus {
  return TERMINAL_STATUSES.includes(status as JobStatus);
}

function parseAge(entry: string, text: string): number | null {
  if (text === 'keep') return null;
  // ms() reads a bare number as milliseconds; a unit is required unless the age is 0.
  const value =
    text === '0' ? 0 : /^\d+(\.\d+)?\s*[a-z]+$/i.test(text) ? ms(text as ms.StringValue) : undefined;
  if (value === undefined || !Number.isFinite(value) || value < 0) {
    throw new RangeError(
      `retention: the age in "${entry}" must be a duration such as 90s, 15m, 12h, 7d, or keep`,
    );
  }
  if (value > MAX_AGE_MS) throw new RangeError(`retention: the age in "${entry}" is over 10 years; use keep`);
  return Math.round(value);
}
