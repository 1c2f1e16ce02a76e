import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createStore, type Store } from '@nudge/store';
import { spawnServer } from '@nudge/server';
import { percentile } from './percentile.js';

const HANDLERS = fileURLToPath(new URL('./handlers.js', import.meta.url));

/** What one dialect measured. */
export interface DialectResult {
  readonly dialect: string;
  readonly threads: number;
  readonly drainJobs: number;
  /** Enqueue of the drain jobs in one transaction, in ms. */
  readonly enqueueMs: number;
  /** From the nudge to the last job `SUCCEEDED`, in ms. */
  readonly drainMs: number;
  readonly latencyJobs: number;
  /** `started_at − created_at` of sequential nudged jobs, in ms (database clock). */
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
}

/** Parameters of one run. */
export interface RunOptions {
  readonly dialect: 'sqlite' | 'postgres';
  readonly databaseUrl: string;
  readonly threads: number;
  readonly drainJobs: number;
  readonly latencyJobs: number;
}

async function nudge(url: string): Promise<void> {
  const response = await fetch(`${url}/nudge`, { method: 'POST' });
  if (response.status !== 202) throw new Error(`POST /nudge answered ${response.status}`);
}

async function until(check: () => Promise<boolean>, intervalMs: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`benchmark step timed out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

async function drain(
  store: Store,
  url: string,
  jobs: number,
): Promise<{ enqueueMs: number; drainMs: number }> {
  const t0 = performance.now();
  await store.enqueueMany(Array.from({ length: jobs }, () => ({ kind: 'noop' })));
  const t1 = performance.now();
  await nudge(url);
  await until(async () => (await store.countByStatus()).SUCCEEDED >= jobs, 20, 600_000);
  return { enqueueMs: t1 - t0, drainMs: performance.now() - t1 };
}

async function latency(store: Store, url: string, jobs: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < jobs; i += 1) {
    const job = await store.enqueue({ kind: 'noop' });
    await nudge(url);
    let startedMs = Number.NaN;
    await until(
      async () => {
        const row = await store.getJob(job.id);
        if (row?.status !== 'SUCCEEDED' || !row.startedAt) return false;
        startedMs = row.startedAt.getTime() - row.createdAt.getTime();
        return true;
      },
      1,
      30_000,
    );
    samples.push(startedMs);
  }
  return samples;
}

/**
 * Runs the server on one database in its own process, drains `drainJobs` no-op jobs, then
 * measures enqueue→start latency over `latencyJobs` sequential jobs, each enqueued then nudged.
 */
export async function runDialect(options: RunOptions): Promise<DialectResult> {
  const store = createStore(options.databaseUrl);
  await store.migrate();
  const server = await spawnServer({
    env: {
      DATABASE_URL: options.databaseUrl,
      NUDGE_HANDLERS: HANDLERS,
      NUDGE_THREADS: String(options.threads),
      LOG_LEVEL: 'warn',
    },
  });
  try {
    const { enqueueMs, drainMs } = await drain(store, server.url, options.drainJobs);
    const samples = await latency(store, server.url, options.latencyJobs);
    return {
      dialect: options.dialect,
      threads: options.threads,
      drainJobs: options.drainJobs,
      enqueueMs,
      drainMs,
      latencyJobs: options.latencyJobs,
      latencyP50Ms: percentile(samples, 50),
      latencyP99Ms: percentile(samples, 99),
    };
  } finally {
    await server.stop();
    await store.close();
  }
}
