import { readdirSync, readFileSync } from 'node:fs';
import type { Dialect } from './store.js';

/** One numbered migration file. */
export interface MigrationFile {
  /** The number the file name starts with, from 1. */
  readonly version: number;
  /** File name without the `.sql` extension. */
  readonly name: string;
  readonly sql: string;
}

const FILE_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/;

/**
 * Reads `migrations/<dialect>/NNNN_name.sql` in version order. Files are append-only: a shipped
 * migration is never edited, a change is a new file.
 *
 * @throws Error when a file name breaks the pattern or versions are not 1, 2, 3 … without gaps
 */
export function loadMigrationFiles(dialect: Dialect): MigrationFile[] {
  const dir = new URL(`../migrations/${dialect}/`, import.meta.url);
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((fileName, index) => {
      const match = FILE_NAME.exec(fileName);
      if (!match) throw new Error(`migration file ${fileName} must be named NNNN_snake_case.sql`);
      const version = Number(match[1]);
      if (version !== index + 1) {
        throw new Error(`migration ${fileName} should be number ${index + 1}: versions must not skip`);
      }
      return { version, name: fileName.slice(0, -4), sql: readFileSync(new URL(fileName, dir), 'utf8') };
    });
  return files;
}
