// `node apps/harness/dist/measure.js`: times the flights-3m report in one thread, then through a nudge
// server with NUDGE_THREADS worker threads (default 2), and prints both wall times (the median of
// three timed runs after two warm-up runs). DATABASE_URL picks the server's database (default: a
// SQLite file in a temporary folder, removed afterwards).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureCpuCapacity } from './cpu-capacity.js';
import { measureFlights3m } from './measure-flights-3m.js';

function threadsFromEnv(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 2;
  const threads = Number(raw);
  if (!Number.isInteger(threads) || threads < 1)
    throw new Error(`NUDGE_THREADS must be a whole number from 1 (got "${raw}")`);
  return threads;
}

async function main(): Promise<number> {
  const threads = threadsFromEnv(process.env.NUDGE_THREADS);
  const folder = process.env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'nudge-measure-'));
  const databaseUrl = process.env.DATABASE_URL ?? `sqlite:${join(folder ?? '.', 'nudge.db')}`;
  try {
    console.log(
      `flights-3m: 2 warm-up runs each, then the median of 3 timed runs; queued on ${threads} ` +
        `thread(s), ${databaseUrl}`,
    );
    const capacityBefore = await measureCpuCapacity(threads);
    const m = await measureFlights3m({ databaseUrl, threads });
    const capacityAfter = await measureCpuCapacity(threads);
    const runs = (samples: readonly number[]): string =>
      samples.map((ms) => (ms / 1000).toFixed(2)).join(', ');
    const single = m.singleThreadWallMs / 1000;
    const queued = m.queuedWallMs / 1000;
    console.log(
      `  single-thread wall time  ${single.toFixed(2)} s  (runs ${runs(m.singleThreadWallMsSamples)})`,
    );
    console.log(`  queued wall time         ${queued.toFixed(2)} s  (runs ${runs(m.queuedWallMsSamples)})`);
    console.log(`  jobs per queued run      ${m.parts} parts + 1 merge`);
    console.log(`  speedup                  ${m.speedup.toFixed(2)}x`);
    console.log(`  same report              ${m.sameReport ? 'yes' : 'NO'}`);
    console.log(
      `  machine check            ${threads} native CPU-bound tasks at once ran ${capacityBefore.toFixed(2)}x ` +
        `(before) and ${capacityAfter.toFixed(2)}x (after) as fast as one: the most any speedup can be here`,
    );
    return m.sameReport ? 0 : 1;
  } finally {
    if (folder) rmSync(folder, { recursive: true, force: true });
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(`measure: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
