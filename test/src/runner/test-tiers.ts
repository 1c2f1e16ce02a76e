import { sep } from 'node:path';

/** Which tests a run takes: `fast` is `pnpm test`, `all` is `pnpm test:all`. */
export type Tier = 'fast' | 'all';

/**
 * Folders of `test/src` whose files run only in the `all` tier: they start server processes,
 * browsers or poolers, pack the workspace, or run long randomised or fault-injection tables.
 * Everything else (unit tests beside the code, conformance, HTTP, engine, CLI, client, schema,
 * structure) is the fast tier.
 */
export const ALL_TIER_FOLDERS: readonly string[] = [
  'chaos',
  'model',
  'demo',
  'packaging',
  'docs',
  'pooler',
  'e2e',
  'server',
];

/**
 * Files of fast-tier folders that run only in the `all` tier, each a process-level end-to-end test.
 */
export const ALL_TIER_FILES: readonly string[] = [
  // A producer process on the same SQLite file as a served instance, for about 20 s.
  'client/sqlite-producer-process.test.js',
];

/**
 * Folders whose files run after the others, one at a time: the fault-injection scenarios judge
 * timings (recovery bounds, p99s, nudge rates), so no CPU-heavy neighbour may skew them.
 */
export const ALONE_FOLDERS: readonly string[] = ['chaos'];

/** `test/dist/<folder>/` as it appears in a compiled file's path. */
function testFolder(folder: string): string {
  return `${sep}test${sep}dist${sep}${folder}${sep}`;
}

/** Whether the compiled test file `path` belongs to `tier`. */
export function inTier(path: string, tier: Tier): boolean {
  if (tier === 'all') return true;
  if (
    ALL_TIER_FILES.some((file) => path.endsWith(`${sep}test${sep}dist${sep}${file.split('/').join(sep)}`))
  ) {
    return false;
  }
  return !ALL_TIER_FOLDERS.some((folder) => path.includes(testFolder(folder)));
}

/** Whether the compiled test file `path` must run alone, after the others. */
export function runsAlone(path: string): boolean {
  return ALONE_FOLDERS.some((folder) => path.includes(testFolder(folder)));
}
