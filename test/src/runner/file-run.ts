import { spawn } from 'node:child_process';

/** What one test file's process did. */
export interface FileResult {
  readonly file: string;
  /** Wall time from spawn to exit, in ms. */
  readonly durationMs: number;
  readonly passed: number;
  /** Failed and cancelled tests; 1 when the process failed without reporting any. */
  readonly failed: number;
  readonly skipped: number;
  /** The process's standard output and error, interleaved as written. */
  readonly output: string;
  /** Set when the file ran past its time limit and its process group was killed. */
  readonly timedOut: boolean;
}

/** The counts node's spec reporter prints last (`ℹ pass 12`), by name. */
function reportedCounts(output: string): Map<string, number> {
  const counts = new Map<string, number>();
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  for (const match of plain.matchAll(/^ℹ (\w+) (\d+)/gm)) {
    counts.set(match[1] ?? '', Number(match[2]));
  }
  return counts;
}

/**
 * Runs one compiled test file in a node process of its own with the spec reporter, output
 * captured. The process leads a process group, so that a file past `timeoutMs` is killed with
 * every server it started.
 */
export function runTestFile(
  file: string,
  options: { env: NodeJS.ProcessEnv; timeoutMs: number; namePattern?: string | undefined },
): Promise<FileResult> {
  const started = performance.now();
  const only = options.namePattern === undefined ? [] : [`--test-name-pattern=${options.namePattern}`];
  const child = spawn(process.execPath, ['--test-reporter=spec', ...only, file], {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child.pid);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, options.timeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid);
      const output = Buffer.concat(chunks).toString('utf8');
      const counts = reportedCounts(output);
      const reportedFailures = (counts.get('fail') ?? 0) + (counts.get('cancelled') ?? 0);
      const exitedBadly = code !== 0 || signal !== null || timedOut;
      resolve({
        file,
        durationMs: performance.now() - started,
        passed: counts.get('pass') ?? 0,
        failed: exitedBadly ? Math.max(1, reportedFailures) : reportedFailures,
        skipped: (counts.get('skipped') ?? 0) + (counts.get('todo') ?? 0),
        output,
        timedOut,
      });
    });
  });
}

/** The process groups of test files still running. */
const running = new Set<number | undefined>();

/** Kills every test file's process group still running (when the runner itself is stopped). */
export function killRunningFiles(): void {
  for (const pid of running) killGroup(pid);
}

/** Kills the process group `pid` leads; a group already gone is no error. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group has exited.
  }
}
