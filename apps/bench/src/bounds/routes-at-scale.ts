// `pnpm bench:routes [sqlite|postgres] [--rows N]`: the time of each read route of the API on a
// table of 1,000 jobs and on one of N (1,000,000 by default), against a server in its own process:
// the dashboard's and an operator's reads, and a Prometheus scrape. The rows are finished history
// (SUCCEEDED over 30 days, 20 kinds and 20 queues) plus 1,000 pending jobs; each route is asked 7
// times and its median and slowest kept. A route whose time grows with the table reads it whole. PostgreSQL
// from BENCH_DATABASE_URL or TEST_DATABASE_URL, else a throwaway server.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import type { Dialect } from '@nudge/store';
import { spawnServer } from '@nudge/harness';
import { createTestDatabase, openStore, type TestDatabase } from '@nudge/test-databases';
import { median } from '../median.js';
import { runSql } from '../scenarios/filler-rows.js';

const { values, positionals } = parseArgs({
  options: { rows: { type: 'string', default: '1000000' } },
  allowPositionals: true,
});
const ROWS = Number(values.rows);
const SMALL = 1000;
const ASKS = 7;
const HANDLERS = fileURLToPath(new URL('bounds-handlers.js', import.meta.url));

/** The routes timed, as the dashboard and an operator ask them (`:id` is a finished job's). */
const ROUTES = [
  '/stats?limit=0',
  '/stats',
  '/queues',
  '/instances',
  '/activity?windowMs=3600000&bucketMs=60000',
  '/jobs?limit=50',
  '/jobs?status=SUCCEEDED&limit=50',
  '/jobs?queue=q-7&limit=50',
  '/jobs/:id',
  '/metrics',
];

/** `count` finished jobs (20 kinds, 20 queues, over 30 days), written as plain SQL. */
async function fill(db: TestDatabase, count: number): Promise<void> {
  if (db.dialect === 'postgres') {
    await runSql(db.url, [
      `INSERT INTO nudge_jobs (kind, queue, payload, status, attempts, version, run_at, created_at, started_at, finished_at)
       SELECT 'k-' || (g % 20), 'q-' || (g % 20), '{}'::jsonb, 'SUCCEEDED', 1, 1, t, t, t, t + interval '5 ms'
         FROM (SELECT g, now() - (g * interval '30 days' / ${count}) AS t FROM generate_series(1, ${count}) AS g) AS s`,
      'VACUUM ANALYZE nudge_jobs',
      'CHECKPOINT',
    ]);
    return;
  }
  const conn = new Database(db.url.slice('sqlite:'.length));
  try {
    conn
      .prepare(
        `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?)
         INSERT INTO nudge_jobs (kind, queue, status, attempts, version, run_at, created_at, started_at, finished_at)
         SELECT 'k-' || (n % 20), 'q-' || (n % 20), 'SUCCEEDED', 1, 1, t, t, t, t
           FROM (SELECT n, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (n * 2592 / ?) || ' seconds') AS t FROM g)`,
      )
      .run(count, count / 1000);
    conn.exec('ANALYZE');
  } finally {
    conn.close();
  }
}

/**
 * The median and the slowest time of each route, in ms, on a table of `rows` finished jobs and
 * 1,000 pending (the slowest shows a route that answers from a count it reuses, such as `/stats`).
 */
async function timeRoutes(dialect: Dialect, rows: number): Promise<Map<string, [number, number]>> {
  const db = await createTestDatabase(dialect);
  await (await openStore(db)).close();
  await fill(db, rows);
  const server = await spawnServer({
    env: {
      DATABASE_URL: db.url,
      NUDGE_HANDLERS: HANDLERS,
      NUDGE_THREADS: '1',
      NUDGE_RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'fatal',
    },
  });
  try {
    const pending = Array.from({ length: SMALL }, (_, n) => ({
      kind: 'noop',
      queue: `q-${n % 20}`,
      delayMs: 3_600_000,
    }));
    const posted = await fetch(`${server.url}/jobs/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobs: pending }),
    });
    if (!posted.ok) throw new Error(`POST /jobs/batch: ${posted.status} ${await posted.text()}`);
    const times = new Map<string, [number, number]>();
    for (const route of ROUTES) {
      const path = route.replace(':id', String(Math.floor(rows / 2)));
      const asked: number[] = [];
      for (let n = 0; n < ASKS; n += 1) {
        const started = performance.now();
        const response = await fetch(`${server.url}${path}`);
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
        asked.push(performance.now() - started);
      }
      times.set(route, [median(asked), Math.max(...asked)]);
    }
    return times;
  } finally {
    await server.stop();
    await db.drop();
  }
}

const dialects = (positionals.length > 0 ? positionals : ['sqlite', 'postgres']) as Dialect[];
for (const dialect of dialects) {
  const small = await timeRoutes(dialect, SMALL);
  const large = await timeRoutes(dialect, ROWS);
  console.log(`\n${dialect}: median (slowest) of ${ASKS} asks, in ms`);
  console.log(`| route | ${SMALL.toLocaleString('en')} jobs | ${ROWS.toLocaleString('en')} jobs |`);
  console.log('| --- | ---: | ---: |');
  const shown = (time: [number, number] | undefined) =>
    time === undefined ? '' : `${time[0].toFixed(1)} (${time[1].toFixed(1)})`;
  for (const route of ROUTES)
    console.log(`| \`GET ${route}\` | ${shown(small.get(route))} | ${shown(large.get(route))} |`);
}
