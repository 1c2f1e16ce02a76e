import pg from 'pg';

/**
 * Transactions committed on the whole PostgreSQL server so far (`pg_stat_database.xact_commit`
 * summed over its databases). Backends report their counts at most once a second, and an idle
 * one within 10 s, so a reading lags by up to that much at each end of a window.
 */
export async function serverCommits(adminUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    // A fresh snapshot: the statistics views are read once per transaction otherwise.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ n: string }>(
      'SELECT sum(xact_commit)::bigint AS n FROM pg_stat_database',
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

const STORE_CALLS = /^nudge_store_calls_total\{method="([^"]+)"\} (\S+)$/;

/** `nudge_store_calls_total` by method, summed over the servers' `/metrics`. */
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

/** Calls a minute by method between two readings, largest first, zeros left out. */
export function callsPerMinute(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  windowMs: number,
): Array<readonly [string, number]> {
  return [...after]
    .map(([method, count]) => [method, ((count - (before.get(method) ?? 0)) * 60_000) / windowMs] as const)
    .filter(([, perMinute]) => perMinute > 0)
    .sort((a, b) => b[1] - a[1]);
}
