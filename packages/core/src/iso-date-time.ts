/** Range of `runAt`, in ms since the epoch: 1970-01-01 to 9999-12-31 (what both dialects store). */
export const RUN_AT_RANGE_MS = {
  minimum: Date.UTC(1970, 0, 1),
  maximum: Date.UTC(9999, 11, 31, 23, 59, 59, 999),
} as const;

const PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/i;

/**
 * True for an RFC 3339 (ISO-8601 profile) date-time with an explicit time zone, such as
 * `2030-01-01T09:00:00Z` or `2030-01-01T10:00:00.250+01:00`, that names a real calendar instant
 * from 1970 to 9999. A time without a zone is refused: it would silently mean the server's zone.
 */
export function isIsoDateTime(value: string): boolean {
  const match = PATTERN.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHour = 0, offsetMinute = 0] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  if (year === undefined || month === undefined || day === undefined) return false;
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > lastDay) return false;
  if ((hour ?? 0) > 23 || (minute ?? 0) > 59 || (second ?? 0) > 59) return false;
  if (offsetHour > 23 || offsetMinute > 59) return false;
  const ms = Date.parse(value);
  return Number.isFinite(ms) && ms >= RUN_AT_RANGE_MS.minimum && ms <= RUN_AT_RANGE_MS.maximum;
}
