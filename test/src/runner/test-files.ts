import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The compiled test folders: each package's and app's `dist`, and `test/dist`. */
export function testRoots(root: string): string[] {
  const roots = ['packages', 'apps'].flatMap((dir) =>
    readdirSync(join(root, dir)).map((name) => join(root, dir, name, 'dist')),
  );
  roots.push(join(root, 'test', 'dist'));
  return roots;
}

/** Every `*.test.js` file under `dir`, or none when `dir` does not exist. */
function testFilesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return entries
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

/**
 * The compiled test files of the workspace at `root` whose path contains one of `filters` (every
 * file when there is none).
 */
export function findTestFiles(root: string, filters: readonly string[]): string[] {
  return testRoots(root)
    .flatMap(testFilesUnder)
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
}
