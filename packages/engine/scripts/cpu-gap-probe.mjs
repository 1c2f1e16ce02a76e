// Where a `cpu` thread's time goes between two jobs. One engine in this process, on a fresh
// PostgreSQL schema (or a SQLite file), `threads` cpu threads, `jobs` jobs that each spin for
// `ms` ms of CPU. Every handler records when it started and ended (wall clock, shared by all threads)
// and its thread; the gap of a thread is the time from one of its jobs ending to its next job
// starting. Prints the share of the machine reached (the handlers' CPU time ÷ (cores × wall time)) and
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
  `import { appendFileSync, readFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
export function burn(iterations) {
  let x = 0;
  for (let i = 0; i < iterations; i += 1) x = (x + Math.sqrt(i)) % 1e9;
  return x;
}
// This thread's time on a CPU in ns (Linux schedstat), or NaN elsewhere.
function threadCpuNs() {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}
export const spin = {
  execution: 'cpu',
  handler: async (payload) => {
    const cpuStart = threadCpuNs();
    const start = performance.timeOrigin + performance.now();
    burn(payload.iterations);
    const end = performance.timeOrigin + performance.now();
    const cpuMs = (threadCpuNs() - cpuStart) / 1e6;
    appendFileSync(${JSON.stringify(log)}, threadId + ' ' + start + ' ' + end + ' ' + cpuMs + '\\n');
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
const cpu0 = process.cpuUsage();
const machine0 = machineCpuMs();
engine.start();
for (;;) {
  const counts = await store.countByStatus();
  if (counts.SUCCEEDED === jobs) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const cpu = process.cpuUsage(cpu0);
const machine = machineCpuMs();
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
// The handlers' CPU time as the kernel counted it, or jobs × ms (calibrated) where it cannot.
const measured = spans.reduce((sum, s) => sum + s[3], 0);
const handlerCpuMs = Number.isNaN(measured) ? jobs * ms : measured;
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
    share: +(handlerCpuMs / (availableParallelism() * (last - first))).toFixed(3),
    wallMs: Math.round(last - first),
    startupMs: Math.round(first - t0),
    gapMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99) },
    // CPU from engine start to the last job seen done (the poll's tail of up to 100 ms
    // included): the handlers' (jobs × ms, calibrated), the rest of this process (claims,
    // outcomes, hand-overs), every other process (the database server among them), and idle.
    cpuMs: {
      handlers: Math.round(handlerCpuMs),
      restOfProcess: Math.round((cpu.user + cpu.system) / 1000 - handlerCpuMs),
      otherProcesses: machine && Math.round(machine.busy - machine0.busy - (cpu.user + cpu.system) / 1000),
      idle: machine && Math.round(machine.idle - machine0.idle),
    },
  }),
);

/** Busy and idle CPU time of the whole machine in ms, from /proc/stat (Linux), else undefined. */
function machineCpuMs() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const tick = 10; // USER_HZ is 100 on Linux: one tick is 10 ms
    const idle = (fields[3] + fields[4]) * tick;
    const total = fields.reduce((sum, f) => sum + f, 0) * tick;
    return { busy: total - idle, idle };
  } catch {
    return undefined;
  }
}
