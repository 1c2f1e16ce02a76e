// `pnpm bench:bounds [sqlite|postgres]`: the probe of issue 27 against a server in its own process.
// 50,000 queue names (50 batches, each job run), then: the size and build time of /metrics, the
// worst /healthz answer during the scrapes and the server's RSS around them; the default pages of
// /queues and /stats with 50,000 unfinished queues; GET /jobs?limit=100 of 100 jobs of 1 MiB, as
// summaries and with fields=payload (every cut page followed); and the bytes the dashboard reads
// in a minute (one refresh's requests, 30 refreshes). PostgreSQL from TEST_DATABASE_URL, else a
// throwaway server.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Dialect } from '@nudge/store';
import { spawnServer } from '@nudge/harness';
import { createTestDatabase, openStore } from '@nudge/test-databases';

const QUEUE_NAMES = 50_000;
const BATCH = 1000;
const BIG_JOBS = 100;
const MIB = 1_048_576;
/** The dashboard's requests of one refresh (packages/dashboard/public/dashboard.js), every 2 s. */
const DASHBOARD_REFRESH = [
  '/stats?limit=0',
  '/queues?limit=50',
  '/instances',
  '/activity?windowMs=3600000&bucketMs=60000',
  '/jobs?limit=50',
];
const REFRESHES_PER_MINUTE = 30;

const HANDLERS = fileURLToPath(new URL('bounds-handlers.js', import.meta.url));
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

async function probe(dialect: Dialect): Promise<void> {
  const db = await createTestDatabase(dialect);
  await (await openStore(db)).close();
  const server = await spawnServer({
    env: {
      DATABASE_URL: db.url,
      NUDGE_HANDLERS: HANDLERS,
      NUDGE_THREADS: '2',
      NUDGE_BODY_LIMIT_BYTES: String(2 * MIB),
      NUDGE_RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'fatal',
    },
  });
  const pid = server.child.pid ?? 0;
  const say = (text: string) => console.log(`[${dialect}] ${text}`);
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  };
  const get = async (path: string) => {
    const started = performance.now();
    const response = await fetch(`${server.url}${path}`);
    const text = Buffer.from(await response.arrayBuffer()).toString();
    return { status: response.status, bytes: Buffer.byteLength(text), ms: performance.now() - started, text };
  };
  const enqueueQueues = async (extra: object) => {
    for (let start = 0; start < QUEUE_NAMES; start += BATCH)
      await post('/jobs/batch', {
        jobs: Array.from({ length: BATCH }, (_, n) => ({ kind: 'noop', queue: `q-${start + n}`, ...extra })),
      });
  };
  try {
    await enqueueQueues({});
    for (;;) {
      const stats = JSON.parse((await get('/stats?limit=0')).text) as { byStatus: { SUCCEEDED: number } };
      if (stats.byStatus.SUCCEEDED >= QUEUE_NAMES) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const rssBefore = rssMb(pid);
    let worstHealthMs = 0;
    let scraping = true;
    const health = (async () => {
      while (scraping) {
        const started = performance.now();
        await fetch(`${server.url}/healthz`).then((r) => r.arrayBuffer());
        worstHealthMs = Math.max(worstHealthMs, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const scrapes = [];
    for (let n = 0; n < 3; n += 1) scrapes.push(await get('/metrics'));
    scraping = false;
    await health;
    const first = scrapes[0] ?? { bytes: 0, text: '' };
    const series = first.text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
    say(
      `/metrics with ${QUEUE_NAMES} queue names: ${mb(first.bytes)}, ${series} series, built in ${scrapes.map((s) => s.ms.toFixed(0)).join(' / ')} ms; /healthz worst ${worstHealthMs.toFixed(0)} ms; RSS ${rssBefore.toFixed(0)} → ${rssMb(pid).toFixed(0)} MB`,
    );

    await enqueueQueues({ delayMs: 3_600_000 });
    for (const path of ['/queues', '/stats']) {
      const page = await get(path);
      say(`GET ${path} with ${QUEUE_NAMES} unfinished queues: ${mb(page.bytes)} in ${page.ms.toFixed(0)} ms`);
    }

    const payload = { blob: 'x'.repeat(MIB - 12) };
    for (let n = 0; n < BIG_JOBS; n += 1) await post('/jobs', { kind: 'noop', queue: 'big', payload });
    const rssJobs = rssMb(pid);
    const summaries = await get('/jobs?queue=big&limit=100');
    say(
      `GET /jobs?queue=big&limit=100 of ${BIG_JOBS} jobs of 1 MiB: ${mb(summaries.bytes)} in ${summaries.ms.toFixed(0)} ms`,
    );
    let cursor: string | null = null;
    let pages = 0;
    let bytes = 0;
    let largest = 0;
    const started = performance.now();
    do {
      const after: string = cursor === null ? '' : `&cursor=${cursor}`;
      const page = await get(`/jobs?queue=big&limit=100&fields=payload${after}`);
      cursor = (JSON.parse(page.text) as { nextCursor: string | null }).nextCursor;
      pages += 1;
      bytes += page.bytes;
      largest = Math.max(largest, page.bytes);
    } while (cursor !== null);
    say(
      `… with fields=payload: ${pages} pages, largest ${mb(largest)}, ${mb(bytes)} in ${(performance.now() - started).toFixed(0)} ms in all; RSS ${rssJobs.toFixed(0)} → ${rssMb(pid).toFixed(0)} MB`,
    );

    let refresh = 0;
    for (const path of DASHBOARD_REFRESH) refresh += (await get(path)).bytes;
    say(
      `dashboard: ${mb(refresh)} a refresh, ${mb(refresh * REFRESHES_PER_MINUTE)} a minute (${DASHBOARD_REFRESH.join(', ')})`,
    );
  } finally {
    await server.stop();
    await db.drop();
  }
}

const dialects = (process.argv[2] ? [process.argv[2]] : ['sqlite', 'postgres']) as Dialect[];
for (const dialect of dialects) await probe(dialect);
