// `pnpm test:install`: nudge installed as a user installs it, outside the workspace. Packs the
// packages, makes a fresh npm project in a temporary folder that takes them from the tarballs
// (everything else from the registry), type-checks its TypeScript producer against the packed
// types, then on SQLite and on PostgreSQL runs `npx nudge migrate`, `npx nudge serve`, the
// producer (Kysely, pg and better-sqlite3 transactions) and `startServer` from code. Prints a
// transcript and exits non-zero on any failure; removes its folders, processes and database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDatabase, type TestDatabase } from '@nudge/test-databases';
import { ThrowawayPostgres } from '@nudge/test-databases/throwaway-postgres';
import { packWorkspace } from '../packaging/pack-workspace.js';
import { writeOutsideProject } from './outside-project.js';
import { run, startService, stopAll } from './transcript.js';

/** Longest `npm install` may take, in ms: better-sqlite3 compiles from source here. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;

const section = (title: string): void => console.log(`\n== ${title}`);

/** `nudge migrate`, `nudge serve`, the producer against it, then `startServer` from code. */
async function runOn(project: string, db: TestDatabase): Promise<void> {
  section(`${db.dialect}: ${db.url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')}`);
  const env = { DATABASE_URL: db.url };
  await run('npx', ['nudge', 'migrate'], { cwd: project, env });
  let shutdown: string[] = [];
  const serve = await startService('npx', ['nudge', 'serve'], /listening on (http:\/\/\S+?)[\s"),]/, {
    cwd: project,
    env: { ...env, NUDGE_HANDLERS: './handlers.mjs', PORT: '0', NUDGE_THREADS: '2' },
  });
  try {
    await run('node', ['build/producer.js'], { cwd: project, env: { ...env, NUDGE_URL: serve.match } });
  } finally {
    shutdown = await serve.stop();
  }
  if (!shutdown.some((line) => line.includes('shut down cleanly'))) {
    throw new Error('`nudge serve` did not log "shut down cleanly" after SIGTERM');
  }
  await run('node', ['build/server.js'], { cwd: project, env });
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'nudge-outside-'));
  let throwaway: ThrowawayPostgres | undefined;
  let postgres: TestDatabase | undefined;
  try {
    console.log(`node ${process.version}, in ${root}`);
    section('pnpm -r pack (the packages that are not private)');
    const tarballs = join(root, 'tarballs');
    console.log(`$ pnpm -r --filter … pack --pack-destination ${tarballs}`);
    const packed = packWorkspace(tarballs);
    for (const { tarball, bytes } of packed) {
      console.log(
        `    ${tarball.slice(tarballs.length + 1).padEnd(28)} ${(bytes / 1024).toFixed(1).padStart(6)} kB`,
      );
    }

    section('a fresh npm project: file: tarballs and overrides, the rest from the registry');
    const project = join(root, 'project');
    writeOutsideProject(project, packed);
    await run('npm', ['install', '--no-audit', '--no-fund'], { cwd: project, timeoutMs: INSTALL_TIMEOUT_MS });
    await run('npm', ['ls', '--all', '--depth=1', '@nudge/server', '@nudge/client'], { cwd: project });
    await run('npx', ['tsc', '--noEmit', '--strict', '-p', 'tsconfig.json'], { cwd: project });
    await run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: project });

    await runOn(project, {
      dialect: 'sqlite',
      url: `sqlite:${join(project, 'data', 'nudge.db')}`,
      drop: async () => undefined,
    });

    let adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) {
      console.log('\nTEST_DATABASE_URL is unset: starting a throwaway PostgreSQL');
      throwaway = await ThrowawayPostgres.start();
      adminUrl = throwaway.url;
    }
    postgres = await createPostgresDatabase(adminUrl);
    await runOn(project, postgres);

    section('passed');
  } finally {
    stopAll();
    await postgres?.drop();
    await throwaway?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

try {
  await main();
  process.exit(0);
} catch (error) {
  console.error(`\nFAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
