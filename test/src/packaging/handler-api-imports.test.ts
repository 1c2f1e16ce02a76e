// The handler-authoring API must load none of the runtime: a handler module imports it in every
// worker thread and in the describing thread, and users' type-checking tools import it too. Each
// entry is imported in a fresh process that logs every module the loader resolves.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { WORKSPACE_ROOT } from './pack-workspace.js';

const IMPORT_LOGGED = fileURLToPath(new URL('./import-logged.js', import.meta.url));

/** Runtime packages a handler module must not pull in through the handler API. */
const RUNTIME = [
  'piscina',
  'pg',
  'better-sqlite3',
  'kysely',
  'fastify',
  'ajv',
  '@nudge/store',
  '@nudge/http',
];

/** The files, relative to the workspace, that make up the handler API once built. */
const HANDLER_API_FILES = [
  'apps/server/dist/handlers.js',
  'packages/engine/dist/handlers/index.js',
  'packages/engine/dist/handlers/handler.js',
  'packages/engine/dist/handlers/define-handlers.js',
];

describe('the handler API loads no runtime module', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'nudge-imports-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Every file (not `node:`) that importing `specifier` in a fresh process resolves. */
  function filesLoadedBy(specifier: string): string[] {
    const log = join(dir, `${specifier.replace(/\W/g, '_')}.log`);
    execFileSync(process.execPath, [IMPORT_LOGGED, log, specifier], { stdio: ['ignore', 'ignore', 'pipe'] });
    const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    return urls.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url));
  }

  /** The runtime packages among `files`, by their `node_modules/<name>/` or workspace folder. */
  function runtimeIn(files: readonly string[]): string[] {
    const found = RUNTIME.filter((name) =>
      files.some(
        (file) =>
          file.includes(`/node_modules/${name}/`) ||
          (name === '@nudge/store' && file.startsWith(join(WORKSPACE_ROOT, 'packages', 'store'))) ||
          (name === '@nudge/http' && file.startsWith(join(WORKSPACE_ROOT, 'packages', 'http'))),
      ),
    );
    return found.sort();
  }

  it('the recorder sees the runtime when the server package itself is imported', () => {
    // The control: were the log empty or the matching wrong, the checks below would pass vacuously.
    assert.deepEqual(runtimeIn(filesLoadedBy('@nudge/server')), [...RUNTIME].sort());
  });

  for (const specifier of ['@nudge/server/handlers', '@nudge/engine/handlers']) {
    it(`${specifier} resolves the handler API's own files and nothing else`, () => {
      const files = filesLoadedBy(specifier).filter((file) => file !== IMPORT_LOGGED);
      assert.deepEqual(runtimeIn(files), []);
      const outside = files.filter(
        (file) => !HANDLER_API_FILES.includes(file.slice(WORKSPACE_ROOT.length + 1)),
      );
      assert.deepEqual(outside, [], `${specifier} loads modules outside the handler API`);
      assert.ok(
        files.some((file) => file.endsWith('define-handlers.js')),
        'defineHandlers was not loaded',
      );
    });
  }
});
