import type { ChaosSize } from '../scenario.js';
import { bearer, BODY_LIMIT_BYTES, json, PRODUCER, READER } from './api-abuse-kit.js';

// Scenario 16's requests that would make the service do unbounded work: an enqueue-only key
// sends many queue names, then a scrape; big payloads, then a list of them. Each answer must
// keep to its documented bound.

/** Distinct queue names sent, by size: past the metrics' cap of 100 at every size. */
const QUEUE_NAMES: Record<ChaosSize, number> = { test: 2000, ci: 10_000, full: 50_000 };
/** Jobs of the biggest payload the body limit lets through: more than one 4 MiB answer holds. */
const BIG_JOBS = 100;
/** The documented bounds checked (docs/reference/http-api.md, "Every answer is bounded"; metrics.md). */
const MAX_SCRAPE_BYTES = 1_000_000;
const MAX_LIST_BYTES = 4 * 1_048_576;
const MAX_SUMMARY_PAGE_BYTES = 100_000;
const DEFAULT_NAME_PAGE = 100;
/** A queue label for each of the first 100 queues, `default`, `(other)` and the few the cases name. */
const MAX_QUEUE_LABELS = 120;
/** Longest `/healthz` answer during a scrape, in ms: generous, the machine is shared. */
const MAX_HEALTH_MS = 1000;

interface Read {
  readonly status: number;
  readonly bytes: number;
  readonly text: string;
}

async function request(url: string, path: string, key: string, body?: unknown): Promise<Read> {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: bearer(key),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : json(body),
    signal: AbortSignal.timeout(60_000),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, bytes: bytes.length, text: bytes.toString() };
}

/** Many queue names from an enqueue-only key, then a scrape, with `/healthz` probed meanwhile. */
async function metricsBound(url: string, size: ChaosSize, issues: string[]): Promise<Record<string, number>> {
  const names = QUEUE_NAMES[size];
  for (let start = 0; start < names; start += 1000) {
    const jobs = Array.from({ length: Math.min(1000, names - start) }, (_, n) => ({
      kind: 'plain',
      queue: `bounds-${start + n}`,
    }));
    const sent = await request(url, '/jobs/batch', PRODUCER, { jobs });
    if (sent.status !== 201)
      issues.push(`a batch of queue names answered ${sent.status}: ${sent.text.slice(0, 200)}`);
  }
  let worstHealthMs = 0;
  let scraping = true;
  const health = (async () => {
    while (scraping) {
      const started = performance.now();
      await fetch(`${url}/healthz`).then((r) => r.arrayBuffer());
      worstHealthMs = Math.max(worstHealthMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const started = performance.now();
  const scrape = await request(url, '/metrics', READER);
  const scrapeMs = performance.now() - started;
  scraping = false;
  await health;
  const queues = new Set(
    [...scrape.text.matchAll(/^nudge_jobs_enqueued_total\{[^}]*queue="([^"]*)"/gm)].map((match) => match[1]),
  );
  if (scrape.status !== 200) issues.push(`GET /metrics answered ${scrape.status}`);
  if (scrape.bytes >= MAX_SCRAPE_BYTES)
    issues.push(`GET /metrics after ${names} queue names is ${scrape.bytes} bytes`);
  if (queues.size > MAX_QUEUE_LABELS || !queues.has('(other)'))
    issues.push(
      `nudge_jobs_enqueued_total has ${queues.size} queue labels, (other) ${queues.has('(other)')}`,
    );
  if (worstHealthMs > MAX_HEALTH_MS)
    issues.push(`/healthz took ${Math.round(worstHealthMs)} ms during a scrape`);
  return {
    'queue names': names,
    'metrics bytes': scrape.bytes,
    'metrics ms': Math.round(scrapeMs),
    'healthz worst ms': Math.round(worstHealthMs),
  };
}

/** Big payloads, then their list: summaries, and with fields=payload answers cut at 4 MiB. */
async function jobListBound(url: string, issues: string[]): Promise<Record<string, number>> {
  // The biggest payload under the body limit, with room for the rest of the body.
  const payload = { blob: 'x'.repeat(BODY_LIMIT_BYTES - 200) };
  for (let n = 0; n < BIG_JOBS; n += 1) {
    const sent = await request(url, '/jobs', PRODUCER, { kind: 'plain', queue: 'bounds-big', payload });
    if (sent.status !== 201) issues.push(`a big payload answered ${sent.status}`);
  }
  const summaries = await request(url, '/jobs?queue=bounds-big&limit=100', READER);
  const page = JSON.parse(summaries.text) as {
    jobs: Array<{ payload?: unknown }>;
    nextCursor: string | null;
  };
  if (
    summaries.bytes >= MAX_SUMMARY_PAGE_BYTES ||
    page.jobs.length !== BIG_JOBS ||
    page.jobs.some((j) => 'payload' in j)
  )
    issues.push(
      `GET /jobs of big payloads: ${summaries.bytes} bytes, ${page.jobs.length} jobs, payloads listed`,
    );
  let cursor: string | null = null;
  let listed = 0;
  let pages = 0;
  let largest = 0;
  do {
    const after: string = cursor === null ? '' : `&cursor=${cursor}`;
    const read = await request(url, `/jobs?queue=bounds-big&limit=100&fields=payload${after}`, READER);
    const body = JSON.parse(read.text) as { jobs: unknown[]; nextCursor: string | null };
    largest = Math.max(largest, read.bytes);
    if (read.status !== 200 || read.bytes > MAX_LIST_BYTES)
      issues.push(`GET /jobs?fields=payload answered ${read.status}, ${read.bytes} bytes`);
    listed += body.jobs.length;
    cursor = body.nextCursor;
    pages += 1;
  } while (cursor !== null && pages <= BIG_JOBS);
  if (listed !== BIG_JOBS || pages < 2)
    issues.push(`fields=payload pages listed ${listed} jobs in ${pages} pages`);
  return {
    'list summary bytes': summaries.bytes,
    'list with payloads, largest page bytes': largest,
    'list pages': pages,
  };
}

/** The default pages of `/queues` and `/stats` after the queue names. */
async function namePageBounds(url: string, issues: string[]): Promise<Record<string, number>> {
  const queues = await request(url, '/queues', READER);
  const stats = await request(url, '/stats', READER);
  const queueCount = (JSON.parse(queues.text) as { queues: unknown[] }).queues.length;
  const statsQueues = Object.keys((JSON.parse(stats.text) as { byQueue: object }).byQueue).length;
  if (queueCount > DEFAULT_NAME_PAGE || statsQueues > DEFAULT_NAME_PAGE)
    issues.push(`GET /queues listed ${queueCount} queues, GET /stats ${statsQueues}`);
  return { 'queues page bytes': queues.bytes, 'stats page bytes': stats.bytes };
}

/**
 * Sends the bound probes to the server at `url` and returns what broke a bound (empty when none)
 * and what was measured.
 */
export async function probeBounds(
  url: string,
  size: ChaosSize,
): Promise<{ issues: string[]; notes: Record<string, number> }> {
  const issues: string[] = [];
  const notes = {
    ...(await metricsBound(url, size, issues)),
    ...(await namePageBounds(url, issues)),
    ...(await jobListBound(url, issues)),
  };
  return { issues, notes };
}
