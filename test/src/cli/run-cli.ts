import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built `nudge` entry. */
export const CLI_MAIN = fileURLToPath(new URL('../../../apps/server/dist/cli/main.js', import.meta.url));

/** How a `nudge` run ended and what it printed. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A `nudge` run still going: its output so far, and how it ends. */
export interface StartedCli {
  /** Resolves once the standard output so far matches `pattern`; rejects after `timeoutMs`. */
  untilStdout(pattern: RegExp, timeoutMs?: number): Promise<void>;
  readonly done: Promise<CliRun>;
}

/**
 * Starts `nudge ARGS` as a child process with only `PATH` and `env` in its environment (so no
 * `NUDGE_HANDLERS`), writing `stdin` to it when given; kills it after 60 s.
 */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv, stdin?: string): StartedCli {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const watch of watchers) watch();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const done = new Promise<CliRun>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
  const untilStdout = (pattern: RegExp, timeoutMs = 30_000): Promise<void> =>
    new Promise((resolve, reject) => {
      const giveUp = setTimeout(() => {
        watchers.delete(watch);
        reject(
          new Error(`nudge printed nothing matching ${pattern} within ${timeoutMs} ms: ${stdout}${stderr}`),
        );
      }, timeoutMs);
      const watch = (): void => {
        if (!pattern.test(stdout)) return;
        clearTimeout(giveUp);
        watchers.delete(watch);
        resolve();
      };
      watchers.add(watch);
      watch();
    });
  return { untilStdout, done };
}

/** Runs `nudge ARGS` to its end (see {@link startCli}). */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<CliRun> {
  return startCli(args, env, stdin).done;
}

/** Parses the stdout of a `--json` run. */
export function jsonOf(run: CliRun): Record<string, unknown> {
  if (run.code !== 0) throw new Error(`nudge exited with ${String(run.code)}: ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}
