// Where a `cpu` thread's time goes between two jobs. One engine in this process, on a fresh
// PostgreSQL schema (or a SQLite file), `threads` cpu threads, `jobs` jobs that each spin for
// `ms` ms of CPU. Every handler records when it started and ended (wall clock, shared by all threads)
// and its thread; the gap of a thread is the time from one of its jobs ending to its next job
// starting. Prints the share of the machine reached (jobs × ms ÷ (cores × wall time)) and
// the gaps' p50/p90/p99. With PROBE_CPU_PROF=1 run it under `node --cpu-prof` to profile the
// main thread (claims, outcomes, the Piscina hand-over).
//
//   pnpm build && node packages/engine/scripts/cpu-gap-probe.mjs [jobs=400] [ms=20] [threads=2] [url]
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { silentLogger } from '@nudge/core';
import { createStore } from '@nudge/store';
import { Engine } from '../dist/index.js';

// pg is the store's dependency, not the engine's.
const storeRequire = createRequire(import.meta.resolve('@nudge/store'));
const [jobsArg, msArg, threadsArg, urlArg] = process.argv.slice(2);
const jobs = Number(jobsArg ?? 400);
const ms = Number(msArg ?? 20);
const threads = Number(threadsArg ?? 2);
const dir = mkdtempSync(join(tmpdir(), 'nudge-gap-'));
const url = urlArg ?? process.env.TEST_DATABASE_URL ?? `sqlite:${join(dir, 'probe.db')}`;
const log = join(dir, 'spans.log');
const handlers = join(dir, 'handlers.mjs');
writeFileSync(
  handlers,
  `import { appendFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
export function burn(iterations) {
  let x = 0;
  for (let i = 0; i < iterations; i += 1) x = (x + Math.sqrt(i)) % 1e9;
  return x;
}
export const spin = {
  execution: 'cpu',
  handler: async (payload) => {
    const start = performance.timeOrigin + performance.now();
    burn(payload.iterations);
    const end = performance.timeOrigin + performance.now();
    appendFileSync(${JSON.stringify(log)}, threadId + ' ' + start + ' ' + end + '\\n');
    return null;
  },
};
`,
);

// Iterations that take \`ms\` of CPU on one otherwise idle thread, so that the share counts CPU
// work, not wall time (with more threads than cores, a job's wall time stretches).
const { burn } = await import(pathToFileURL(handlers).href);
let iterations = 1_000_000;
for (;;) {
  const t = performance.now();
  burn(iterations);
  const took = performance.now() - t;
  if (took > 200) {
    iterations = Math.round((iterations * ms) / took);
    break;
  }
  iterations *= 2;
}

const schema = `gap_probe_${process.pid}`;
const store = createStore(
  url.startsWith('postgres')
    ? `${url}${url.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`
    : url,
);
if (url.startsWith('postgres')) {
  const pg = storeRequire('pg');
  const client = new pg.Client(url);
  await client.connect();
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await client.end();
}
await store.migrate();
await store.enqueueMany(Array.from({ length: jobs }, () => ({ kind: 'spin', payload: { iterations } })));
const engine = await Engine.create({
  store,
  handlers: pathToFileURL(handlers).href,
  threads,
  logger: silentLogger,
});
const t0 = performance.timeOrigin + performance.now();
engine.start();
for (;;) {
  const counts = await store.countByStatus();
  if (counts.SUCCEEDED === jobs) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
await engine.stop();
await store.close();
if (url.startsWith('postgres')) {
  const pg = storeRequire('pg');
  const client = new pg.Client(url);
  await client.connect();
  await client.query(`DROP SCHEMA ${schema} CASCADE`);
  await client.end();
}

const spans = readFileSync(log, 'utf8')
  .trim()
  .split('\n')
  .map((line) => line.split(' ').map(Number));
const first = Math.min(...spans.map((s) => s[1]));
const last = Math.max(...spans.map((s) => s[2]));
const byThread = new Map();
for (const [thread, start, end] of spans) {
  const list = byThread.get(thread) ?? [];
  list.push([start, end]);
  byThread.set(thread, list);
}
const gaps = [];
for (const list of byThread.values()) {
  list.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < list.length; i += 1) gaps.push(list[i][0] - list[i - 1][1]);
}
gaps.sort((a, b) => a - b);
const at = (q) => gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))]?.toFixed(2);
console.log(
  JSON.stringify({
    url: url.replace(/\/\/[^@]*@/, '//'),
    jobs,
    ms,
    threads,
    cores: availableParallelism(),
    share: +((jobs * ms) / (availableParallelism() * (last - first))).toFixed(3),
    wallMs: Math.round(last - first),
    startupMs: Math.round(first - t0),
    gapMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99) },
  }),
);
