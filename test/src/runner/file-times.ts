import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * How long each test file took when it last ran, kept between runs (in `node_modules/.cache`,
 * never committed) so that a run starts its longest files first and ends sooner.
 */
export class FileTimes {
  readonly #path: string;
  readonly #root: string;
  readonly #times: Record<string, number>;

  constructor(root: string) {
    this.#root = root;
    this.#path = join(root, 'node_modules', '.cache', 'nudge', 'test-file-times.json');
    this.#times = FileTimes.#read(this.#path);
  }

  static #read(path: string): Record<string, number> {
    try {
      const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, number>) : {};
    } catch {
      return {};
    }
  }

  /** The last duration of `file` in ms, if it ran before. */
  lastMs(file: string): number | undefined {
    return this.#times[relative(this.#root, file)];
  }

  /**
   * `files`, longest first: those never timed first (they may be long), the largest of them
   * first, as a fresh checkout has no times; then the others by their last time.
   */
  longestFirst(files: readonly string[]): string[] {
    const key = (file: string): number => this.lastMs(file) ?? 1e12 + statSync(file).size;
    return [...files].sort((a, b) => key(b) - key(a));
  }

  record(file: string, durationMs: number): void {
    this.#times[relative(this.#root, file)] = Math.round(durationMs);
  }

  save(): void {
    try {
      mkdirSync(dirname(this.#path), { recursive: true });
      writeFileSync(this.#path, `${JSON.stringify(this.#times, null, 1)}\n`);
    } catch {
      // A read-only checkout runs its files in any order.
    }
  }
}
