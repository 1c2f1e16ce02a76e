// `pnpm bench`: drains no-op jobs and measures nudged pickup latency on SQLite and PostgreSQL.
// BENCH_JOBS (20000), BENCH_LATENCY_JOBS (300), NUDGE_THREADS (available parallelism), and
// BENCH_DATABASE_URL or TEST_DATABASE_URL for PostgreSQL (else a throwaway embedded server).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchPostgres } from './bench-postgres.js';
import { runDialect, type DialectResult } from './run-dialect.js';

function whole(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number >= 1 (got "${raw}")`);
    process.exit(1);
  }
  return value;
}

const drainJobs = whole('BENCH_JOBS', 20_000);
const latencyJobs = whole('BENCH_LATENCY_JOBS', 300);
const threads = whole('NUDGE_THREADS', availableParallelism());

const results: DialectResult[] = [];
const sqliteDir = mkdtempSync(join(tmpdir(), 'nudge-bench-'));
try {
  console.log(`sqlite: draining ${drainJobs} no-op jobs, then ${latencyJobs} nudged jobs one by one…`);
  results.push(
    await runDialect({
      dialect: 'sqlite',
      databaseUrl: `sqlite:${join(sqliteDir, 'bench.db')}`,
      threads,
      drainJobs,
      latencyJobs,
    }),
  );
} finally {
  rmSync(sqliteDir, { recursive: true, force: true });
}

const postgres = await startBenchPostgres(process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL);
try {
  console.log(`postgres: draining ${drainJobs} no-op jobs, then ${latencyJobs} nudged jobs one by one…`);
  results.push(
    await runDialect({
      dialect: 'postgres',
      databaseUrl: await postgres.createDatabase(),
      threads,
      drainJobs,
      latencyJobs,
    }),
  );
} finally {
  await postgres.close();
}

const rows = results.map((r) => [
  r.dialect,
  String(r.threads),
  `${Math.round(r.enqueueMs)} ms`,
  `${(r.drainMs / 1000).toFixed(2)} s`,
  `${Math.round((r.drainJobs / r.drainMs) * 1000)}`,
  `${r.latencyP50Ms.toFixed(1)} ms`,
  `${r.latencyP99Ms.toFixed(1)} ms`,
]);
const header = [
  'dialect',
  'threads',
  `enqueue ${drainJobs}`,
  `drain ${drainJobs}`,
  'jobs/s',
  `p50 enqueue→start (n=${latencyJobs})`,
  'p99',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)));
const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
console.log('');
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(row));
