import { relative } from 'node:path';
import { runTestFile, type FileResult } from './file-run.js';
import type { FileTimes } from './file-times.js';

/** How a batch of test files runs. */
export interface RunFilesOptions {
  /** Files run at once, each in a process of its own. */
  readonly concurrency: number;
  readonly env: NodeJS.ProcessEnv;
  /** A file's time limit, in ms. */
  readonly timeoutMs: number;
  /** The workspace root, against which paths are printed. */
  readonly root: string;
  readonly times: FileTimes;
  /** Print each failing file's whole output (always) and each passing file's (when set). */
  readonly verbose: boolean;
  /** Only the tests whose names match this regular expression (node's `--test-name-pattern`). */
  readonly namePattern?: string | undefined;
}

/** `ms` as seconds with one decimal. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Prints one finished file: a line when it passed, its whole output first when it failed. */
function report(result: FileResult, options: RunFilesOptions): void {
  const name = relative(options.root, result.file);
  const failed = result.failed > 0;
  if (failed || options.verbose) process.stdout.write(result.output);
  const mark = failed ? '✖' : '✔';
  const why = result.timedOut ? `, killed after ${seconds(options.timeoutMs)}` : '';
  const counts = `${result.passed} passed${failed ? `, ${result.failed} failed` : ''}`;
  console.log(`${mark} ${name} (${counts}, ${seconds(result.durationMs)}${why})`);
}

/**
 * Runs `files`, longest first by their last times, `concurrency` at a time, printing each as it
 * ends and recording its time.
 */
export async function runFiles(files: readonly string[], options: RunFilesOptions): Promise<FileResult[]> {
  const queue = options.times.longestFirst(files);
  const results: FileResult[] = [];
  const worker = async (): Promise<void> => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const result = await runTestFile(file, options);
      options.times.record(file, result.durationMs);
      report(result, options);
      results.push(result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  return results;
}

/** Totals over `results`: the closing line counts them. */
export function totals(results: readonly FileResult[]): { passed: number; failed: number; skipped: number } {
  return results.reduce(
    (sum, r) => ({
      passed: sum.passed + r.passed,
      failed: sum.failed + r.failed,
      skipped: sum.skipped + r.skipped,
    }),
    { passed: 0, failed: 0, skipped: 0 },
  );
}
