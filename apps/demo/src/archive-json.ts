import { randomUUID } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { threadId } from 'node:worker_threads';
import { gzip } from 'node:zlib';
import { makeFolder } from './make-folder.js';

const gzipAsync = promisify(gzip);

/** What {@link archiveJson} wrote. */
export interface ArchiveResult {
  /** Absolute path of the `.json.gz` file. */
  readonly path: string;
  /** Size of the JSON text, in bytes (UTF-8). */
  readonly bytes: number;
  /** Size of the gzip file, in bytes. */
  readonly gzipBytes: number;
}

/**
 * Writes `value` as JSON, gzipped at level 9, to `<outputDir>/<name>.json.gz`, atomically: the
 * bytes go to a uniquely named temporary file in the same folder, are flushed to disk, then the
 * file is renamed over the target. Readers see the old file or the new one, never a part; a
 * re-run (a retried job) replaces the file with identical bytes, so it is idempotent.
 *
 * @param name - file name without extension; the caller checks it names no other folder
 * @throws Error when the folder cannot be created or written
 */
export async function archiveJson(name: string, value: unknown, outputDir: string): Promise<ArchiveResult> {
  const folder = resolve(outputDir);
  await makeFolder(folder);
  const json = Buffer.from(JSON.stringify(value) ?? 'null', 'utf8');
  const gzipped = await gzipAsync(json, { level: 9 });
  const path = join(folder, `${name}.json.gz`);
  const temporary = join(folder, `.${name}.json.gz.${process.pid}-${threadId}-${randomUUID()}.tmp`);
  try {
    const file = await open(temporary, 'wx');
    try {
      await file.writeFile(gzipped);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return { path, bytes: json.length, gzipBytes: gzipped.length };
}
