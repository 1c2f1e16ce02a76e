// A/B of the pool under `async` kinds, in one process, alternating: today's batched threads
// (one message per claim, results batched per turn of the thread's event loop) against Piscina
// with `concurrentTasksPerWorker` = the async concurrency (one task per job), both running the
// same handler code (attempt-runner.ts) on one thread. The driver keeps `concurrency` jobs in
// flight and refills what each report frees, as the claimer does. Prints, per run, jobs/s, the
// main thread's busy time per job (event-loop utilization), and the whole process's CPU per job.
//
//   pnpm build && node packages/engine/scripts/async-pool-ab.mjs [jobs=20000] [rounds=3] [concurrency=100]
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { silentLogger } from '@nudge/core';
import { ThreadPool } from '../dist/threads/thread-pool.js';

const [jobs = 20_000, rounds = 3, concurrency = 100] = process.argv.slice(2).map(Number);
const dir = mkdtempSync(join(tmpdir(), 'nudge-ab-'));
const file = join(dir, 'handlers.mjs');
writeFileSync(file, `export const noop = { execution: 'async', handler: async () => null };\n`);
const handlersUrl = pathToFileURL(file).href;
let nextId = 1;
const job = () => ({
  id: nextId++,
  version: 1,
  kind: 'noop',
  attempt: 1,
  payloadJson: '{}',
  queue: 'default',
});

async function measure(name, run) {
  const elu = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const ms = performance.now() - t0;
  const busy = performance.eventLoopUtilization(elu);
  const used = process.cpuUsage(cpu);
  return {
    name,
    jobsPerSecond: Math.round(jobs / (ms / 1000)),
    mainThreadUsPerJob: +((busy.active * 1000) / jobs).toFixed(1),
    processCpuUsPerJob: +((used.user + used.system) / jobs).toFixed(1),
  };
}

async function batched() {
  let done = 0;
  let sent = 0;
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const pool = await ThreadPool.start(
    {
      execution: 'async',
      handlersUrl,
      threads: 1,
      perThread: concurrency,
      maxOldGenerationSizeMb: 256,
      niceIncrement: 0,
      progressIntervalMs: 1000,
      logger: silentLogger,
    },
    {
      onResults: (_e, results) => {
        done += results.length;
        const refill = Math.min(results.length, jobs - sent);
        if (refill > 0) {
          sent += refill;
          pool.dispatch(Array.from({ length: refill }, job));
        }
        if (done === jobs) finish();
      },
      onThreadReady: () => undefined,
      onProgress: () => undefined,
      onThreadLost: () => undefined,
    },
  );
  const result = await measure('batched threads', async () => {
    sent = Math.min(concurrency, jobs);
    pool.dispatch(Array.from({ length: sent }, job));
    await finished;
  });
  await pool.destroy();
  return result;
}

async function piscina() {
  const pool = new Piscina({
    filename: new URL('../dist/threads/piscina-entry.js', import.meta.url).href,
    minThreads: 1,
    maxThreads: 1,
    concurrentTasksPerWorker: concurrency,
    // 'sync' would freeze the worker's event loop between tasks; with many tasks per worker
    // Piscina never waits on atomics anyway. AB_ATOMICS=sync|async|disabled to compare.
    atomics: process.env.AB_ATOMICS ?? 'disabled',
    resourceLimits: { maxOldGenerationSizeMb: 256 },
    workerData: { handlersUrl, niceIncrement: 0, progressIntervalMs: 1000, abortChannel: 'nudge-ab' },
  });
  await pool.run(null);
  const result = await measure('Piscina, one task per job', async () => {
    let sent = 0;
    let finish;
    const finished = new Promise((resolve) => (finish = resolve));
    let done = 0;
    const send = () => {
      const j = job();
      sent += 1;
      void pool.run([j.id, j.version, j.kind, j.attempt, j.payloadJson]).then(() => {
        done += 1;
        if (sent < jobs) send();
        if (done === jobs) finish();
      });
    };
    for (let i = 0; i < Math.min(concurrency, jobs); i += 1) send();
    await finished;
  });
  await pool.destroy();
  return result;
}

const rows = [];
for (let round = 0; round < rounds; round += 1) {
  // Alternate the order, so that neither always runs first on a warmer machine.
  const order = round % 2 === 0 ? [batched, piscina] : [piscina, batched];
  for (const run of order) rows.push({ round: round + 1, ...(await run()) });
}
console.table(rows);
