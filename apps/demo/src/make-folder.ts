import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

function code(error: unknown): unknown {
  return (error as { code?: unknown }).code;
}

/**
 * Creates a folder and any missing parents, like `mkdir -p`. Used instead of
 * `mkdir(path, { recursive: true })`, which spins forever in Node 20 when a parent exists but
 * cannot hold children (a path under `/proc`, a dangling symlink): it reads every ENOENT as "the
 * parent is missing", creates the parent (EEXIST), and retries the child without end
 * (nodejs/node behaviour described in Kewton/CommandMate#1774 and oven-sh/bun#36162). Here a
 * child that still fails with ENOENT once its parent exists is an error.
 *
 * @throws Error with the system code (ENOENT, EACCES, ENOTDIR, …) when the folder cannot be made
 */
export async function makeFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder);
  } catch (error) {
    if (code(error) === 'EEXIST') return;
    const parent = dirname(folder);
    if (code(error) !== 'ENOENT' || parent === folder) throw error;
    await makeFolder(parent);
    await mkdir(folder).catch((retry: unknown) => {
      if (code(retry) !== 'EEXIST') throw retry;
    });
  }
}
