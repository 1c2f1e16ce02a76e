// `node scripts/drain-ab.mjs <checkout A> <checkout B> [<checkout C> …] [--rounds N] [--jobs N]
// [--dialects postgres,sqlite]`: the bench's no-op drain on built checkouts of nudge
// (`pnpm install && npx tsc -b` in each), side by side in one run. Every checkout's server is up
// at once, each on a fresh database of the same PostgreSQL (or its own SQLite file), idle while
// another drains; after an untimed warm-up drain each, N rounds of one drain each, the order
// rotating every round (A B C, B C A, C A B, …) so all see the same drift of a shared machine's
// load. Each server runs its checkout's own code and handler module; the measuring code (drain,
// reports, CPU from /proc) is this checkout's. Prints each round's jobs/s and CPU per job (the
// server process; the PostgreSQL backends of its database), then for each checkout against A the
// median over the rounds of its ratio within the round. PostgreSQL: BENCH_DATABASE_URL or
// TEST_DATABASE_URL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const USAGE =
  'usage: node scripts/drain-ab.mjs <checkout A> <checkout B> [<checkout C> …] [--rounds N] [--jobs N] [--dialects postgres,sqlite]';
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const dirs = args.filter((arg, i) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (dirs.length < 2) {
  console.error(USAGE);
  process.exit(2);
}
const rounds = Number(flag('--rounds', '6'));
const jobs = Number(flag('--jobs', '20000'));
const dialects = flag('--dialects', 'postgres,sqlite').split(',');

const bench = (file) =>
  import(pathToFileURL(resolve(import.meta.dirname, '..', 'apps/bench/dist', file)).href);
const { ReportListener } = await bench('report/report-listener.js');
const { startBenchPostgres } = await bench('bench-postgres.js');
const { measureDrain } = await bench('scenarios/measure-drain.js');
const { readSteadyCpu, steadyCpuPerJob } = await bench('scenarios/steady/steady-cpu.js');
const { median } = await bench('median.js');
const sides = await Promise.all(
  dirs.map(async (dir, i) => ({
    name: String.fromCharCode(65 + i),
    dir,
    nudgeSystem: (await import(pathToFileURL(resolve(dir, 'apps/bench/dist/nudge/nudge-system.js')).href))
      .nudgeSystem,
  })),
);

const postgresUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
const tmpDir = mkdtempSync(join(tmpdir(), 'nudge-drain-ab-'));
const listener = await ReportListener.open();
const postgres = await startBenchPostgres(postgresUrl);
const context = { postgres, reportPort: listener.port, redisUrl: '', tmpDir };
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const us = (n) => (Number.isFinite(n) ? n.toFixed(1) : '—');
try {
  for (const side of sides) console.log(`${side.name} = ${side.dir}`);
  console.log(`${rounds} rounds of ${fmt(jobs)} no-op jobs, one drain each checkout per round`);
  for (const dialect of dialects) {
    const running = [];
    try {
      for (const side of sides) running.push(await side.nudgeSystem(dialect).start(context));
      const drain = async (system) => {
        const before = await readSteadyCpu(system, postgres.adminUrl);
        const run = await measureDrain(system, listener, 'noop', jobs);
        const after = await readSteadyCpu(system, postgres.adminUrl);
        if (run.lost + run.duplicate > 0) console.log(`  lost ${run.lost}, dup ${run.duplicate}`);
        const cpu = steadyCpuPerJob(before, after, jobs, dialect === 'postgres');
        return { rate: run.jobsPerSecond, serverUs: cpu.serviceUs, postgresUs: cpu.databaseUs };
      };
      for (const system of running) await drain(system);
      const results = sides.map(() => []);
      for (let round = 0; round < rounds; round += 1) {
        const order = sides.map((_, i) => (i + round) % sides.length);
        for (const i of order) results[i][round] = await drain(running[i]);
        const cells = sides.map((side, i) => {
          const r = results[i][round];
          return `${side.name} ${fmt(r.rate)} jobs/s, server ${us(r.serverUs)} µs/job, PostgreSQL ${us(r.postgresUs)} µs/job`;
        });
        console.log(
          `${dialect} round ${round + 1} (${order.map((i) => sides[i].name).join(' ')}): ${cells.join('; ')}`,
        );
      }
      const med = (i, field) => median(results[i].map((r) => r[field]));
      const ratio = (i, field) => median(results[i].map((r, round) => r[field] / results[0][round][field]));
      for (const [i, side] of sides.entries()) {
        const against =
          i === 0
            ? ''
            : `; ÷ A per round, median: jobs/s ${ratio(i, 'rate').toFixed(2)}, server CPU ${ratio(i, 'serverUs').toFixed(2)}` +
              (dialect === 'postgres' ? `, PostgreSQL CPU ${ratio(i, 'postgresUs').toFixed(2)}` : '');
        console.log(
          `${dialect} ${side.name} medians: ${fmt(med(i, 'rate'))} jobs/s, server ${us(med(i, 'serverUs'))} µs/job, PostgreSQL ${us(med(i, 'postgresUs'))} µs/job${against}`,
        );
      }
    } finally {
      for (const system of running) await system.stop();
    }
  }
} finally {
  await listener.close();
  await postgres.close();
  rmSync(tmpDir, { recursive: true, force: true });
}
