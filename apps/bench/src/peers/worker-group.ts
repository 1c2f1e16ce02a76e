import { startWorkerProcess, type WorkerProcess, type WorkerProcessOptions } from './worker-process.js';

/** A peer's worker processes, started and stopped together. */
export interface WorkerGroup {
  /** The processes' ids. */
  readonly pids: readonly number[];
  /** Stops every process (see {@link WorkerProcess.stop}). */
  stop(): Promise<void>;
}

/**
 * Starts `count` copies of `script` one after another (see {@link startWorkerProcess}), named
 * `name #1`, `name #2`, … when there are several; stops those already started when one fails.
 * @throws Error when a process exits before it is ready or is not ready in time
 */
export async function startWorkerGroup(
  name: string,
  script: string,
  env: Readonly<Record<string, string>>,
  count: number,
  options: WorkerProcessOptions = {},
): Promise<WorkerGroup> {
  const started: WorkerProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(started.map((worker) => worker.stop()));
  };
  try {
    for (let i = 0; i < count; i += 1)
      started.push(await startWorkerProcess(count > 1 ? `${name} #${i + 1}` : name, script, env, options));
  } catch (error) {
    await stop();
    throw error;
  }
  return { pids: started.map((worker) => worker.child.pid ?? 0).filter((pid) => pid > 0), stop };
}
