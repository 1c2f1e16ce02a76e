import { spawn } from 'node:child_process';

/** How a node script ended and what it printed. */
export interface NodeRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Longest a script may run before {@link runNode} kills it, in ms. */
export const RUN_TIMEOUT_MS = 180_000;

/** Runs a node script to its end in `cwd`, killing it after {@link RUN_TIMEOUT_MS}. */
export function runNode(
  script: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  args: readonly string[] = [],
): Promise<NodeRun> {
  const child = spawn(process.execPath, [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
