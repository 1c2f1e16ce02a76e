import pg from 'pg';

/**
 * Time PostgreSQL 15 may take to report a backend's committed transactions, in ms: a backend
 * reports at most once a second and, when it goes idle with counts pending, within
 * `PGSTAT_IDLE_INTERVAL` (10 s, src/include/pgstat.h), or when it exits. 1 s of margin on top.
 */
export const STATS_REPORT_LAG_MS = 11_000;

/**
 * Store methods that only a `GET /metrics` scrape calls on an idle server: `countByStatus`, once
 * per scrape per instance unless the instance's last count is younger than its
 * `statusCountMaxAgeMs` (15 s; see `JobStatusCounts` in @nudge/http). A scrape makes no other
 * store call (checked against `nudge_store_calls_total` of back-to-back scrapes).
 */
export const SCRAPE_STORE_METHODS: ReadonlySet<string> = new Set(['countByStatus']);

/**
 * Transactions committed so far in `databases` (`pg_stat_database.xact_commit`), read over a new
 * connection to `adminUrl`'s database, so the reading's own transactions (its connection start and
 * its two statements) land in that database and never in the ones counted. The counts lag the
 * commits by up to {@link STATS_REPORT_LAG_MS}.
 */
export async function databaseCommits(adminUrl: string, databases: readonly string[]): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    // A fresh snapshot: the statistics views are read once per transaction otherwise.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ n: string | null }>(
      'SELECT sum(xact_commit)::bigint AS n FROM pg_stat_database WHERE datname = ANY($1)',
      [databases],
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

const STORE_CALLS = /^nudge_store_calls_total\{method="([^"]+)"\} (\S+)$/;

/**
 * `nudge_store_calls_total` by method, summed over the servers' `/metrics`. Each scrape is itself
 * a store call or more on each server ({@link SCRAPE_STORE_METHODS}), and whether a scrape's own
 * call is in the text it returns depends on the order its collectors run.
 */
export async function storeCalls(serverUrls: readonly string[]): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const url of serverUrls) {
    const response = await fetch(`${url}/metrics`);
    if (!response.ok) throw new Error(`GET ${url}/metrics answered ${response.status}`);
    for (const line of (await response.text()).split('\n')) {
      const match = STORE_CALLS.exec(line);
      if (match) calls.set(match[1] as string, (calls.get(match[1] as string) ?? 0) + Number(match[2]));
    }
  }
  return calls;
}

/**
 * Calls a minute by method between two readings `windowMs` apart, largest first, zeros and the
 * `omitted` methods left out (the bench's own scrapes: {@link SCRAPE_STORE_METHODS}).
 */
export function callsPerMinute(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  windowMs: number,
  omitted: ReadonlySet<string> = new Set(),
): Array<readonly [string, number]> {
  return [...after]
    .filter(([method]) => !omitted.has(method))
    .map(([method, count]) => [method, ((count - (before.get(method) ?? 0)) * 60_000) / windowMs] as const)
    .filter(([, perMinute]) => perMinute > 0)
    .sort((a, b) => b[1] - a[1]);
}

/** Calls of the `methods` between two readings, summed: the bench's own scrapes' calls. */
export function callsOf(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  methods: ReadonlySet<string>,
): number {
  let calls = 0;
  for (const method of methods) calls += (after.get(method) ?? 0) - (before.get(method) ?? 0);
  return calls;
}
