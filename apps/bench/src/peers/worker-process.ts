import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** The line a peer's worker process prints once it is idle and ready for jobs. */
export const READY_LINE = 'bench-worker-ready';

/** A peer's worker running in its own Node process. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Sends `SIGTERM`, then `SIGKILL` after `killAfterMs`; resolves with the exit code. */
  stop(killAfterMs?: number): Promise<number>;
}

/** Options of {@link startWorkerProcess}. */
export interface WorkerProcessOptions {
  /** The Node.js binary to run the script with (see `peer-node.ts`). @defaultValue `process.execPath` */
  readonly execPath?: string;
  /** Longest wait for {@link READY_LINE}, in ms. @defaultValue 60000 */
  readonly readyTimeoutMs?: number;
}

/**
 * Starts `node <script>` with `env` over this process's environment, forwards its output to this
 * process's stderr prefixed with `name`, and resolves once it prints {@link READY_LINE}.
 * @throws Error when it exits first or is not ready within `readyTimeoutMs`
 */
export function startWorkerProcess(
  name: string,
  script: string,
  env: Readonly<Record<string, string>>,
  { execPath = process.execPath, readyTimeoutMs = 60_000 }: WorkerProcessOptions = {},
): Promise<WorkerProcess> {
  const child = spawn(execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? 1)));
  let done = false;
  const stop = async (killAfterMs = 30_000): Promise<number> => {
    if (!done) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  void exited.then(() => (done = true));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} printed no ready line within ${readyTimeoutMs} ms`));
    }, readyTimeoutMs);
    createInterface({ input: child.stderr }).on('line', (line) => console.error(`  [${name}] ${line}`));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line !== READY_LINE) {
        console.error(`  [${name}] ${line}`);
        return;
      }
      clearTimeout(timer);
      resolve({ child, stop });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready`));
    });
  });
}

/** Reads the JSON configuration a worker process was started with from `BENCH_WORKER_CONFIG`. */
export function workerConfig<T>(): T {
  const raw = process.env.BENCH_WORKER_CONFIG;
  if (!raw) throw new Error('BENCH_WORKER_CONFIG is not set: this script is started by the bench');
  return JSON.parse(raw) as T;
}

/** Prints {@link READY_LINE}, then stops through `stop` on SIGTERM or SIGINT and exits. */
export function announceReady(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (): void => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  console.log(READY_LINE);
}
