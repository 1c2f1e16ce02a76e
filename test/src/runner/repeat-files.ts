import { spawn, type ChildProcess } from 'node:child_process';
import { relative } from 'node:path';
import { killGroup } from './file-run.js';
import { runFiles, totals, type RunFilesOptions } from './run-files.js';

/** How `--repeat` runs: the batch's options, how many runs, how many busy loops beside them. */
export interface RepeatOptions extends RunFilesOptions {
  readonly runs: number;
  /** Processes that spin a core each for the whole repeat, to shake out timing assumptions. */
  readonly busy: number;
}

/** Starts a process that keeps one core busy until it is killed. */
function busyLoop(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore', detached: true });
}

/**
 * Runs `files` `runs` times over, every run to its end (a failure does not stop the next), with
 * `busy` busy-looping processes beside them, and prints how many runs each file passed.
 *
 * @returns the exit code: 0 when every file passed every run
 */
export async function repeatFiles(files: readonly string[], options: RepeatOptions): Promise<number> {
  const loops = Array.from({ length: options.busy }, busyLoop);
  const passedRuns = new Map<string, number>(files.map((f) => [f, 0]));
  let sum = { passed: 0, failed: 0, skipped: 0 };
  try {
    for (let run = 1; run <= options.runs; run += 1) {
      console.log(
        `run ${run} of ${options.runs}${options.busy > 0 ? `, ${options.busy} busy loops beside it` : ''}`,
      );
      const results = await runFiles(files, options);
      for (const r of results) if (r.failed === 0) passedRuns.set(r.file, (passedRuns.get(r.file) ?? 0) + 1);
      const t = totals(results);
      sum = {
        passed: sum.passed + t.passed,
        failed: sum.failed + t.failed,
        skipped: sum.skipped + t.skipped,
      };
    }
  } finally {
    for (const loop of loops) killGroup(loop.pid);
  }
  console.log('\nruns passed, by file:');
  for (const [file, passed] of passedRuns) {
    console.log(`  ${passed} of ${options.runs}  ${relative(options.root, file)}`);
  }
  console.log(`tests: ${sum.passed} passed, ${sum.failed} failed, ${sum.skipped} skipped`);
  return sum.failed > 0 ? 1 : 0;
}
