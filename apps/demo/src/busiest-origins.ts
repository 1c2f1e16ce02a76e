import type { Flight } from './flight.js';

/** The `limit` origin airports with the most departures: most first, ties by IATA code. */
export function busiestOrigins(flights: readonly Flight[], limit: number): string[] {
  const counts = new Map<string, number>();
  for (const flight of flights) counts.set(flight.origin, (counts.get(flight.origin) ?? 0) + 1);
  return [...counts]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, limit)
    .map(([origin]) => origin);
}
