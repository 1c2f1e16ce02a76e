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

/**
 * Runs `nudge ARGS` as a child process with only `PATH` and `env` in its environment (so no
 * `NUDGE_HANDLERS`), writing `stdin` to it when given; kills it after 60 s.
 */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** Parses the stdout of a `--json` run. */
export function jsonOf(run: CliRun): Record<string, unknown> {
  if (run.code !== 0) throw new Error(`nudge exited with ${String(run.code)}: ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}
