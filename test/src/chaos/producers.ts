import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PRODUCER = fileURLToPath(new URL('./producer.js', import.meta.url));

/** A producer process started by {@link startProducer}. */
export interface Producer {
  readonly child: ChildProcess;
  /** Resolves with the exit code, or 128 + the signal number's stand-in 9 after a kill. */
  readonly exited: Promise<number>;
}

/** Starts `producer.js` with these arguments (see its header). */
export function startProducer(args: readonly string[]): Producer {
  const child = spawn(process.execPath, [PRODUCER, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 137)));
  return { child, exited };
}

/** What producers recorded in `file`: the ids of committed enqueues, and the errors they saw. */
export function readAccepted(file: string): { ids: number[]; errors: string[] } {
  const ids: number[] = [];
  const errors: string[] = [];
  if (!existsSync(file)) return { ids, errors };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('A ')) ids.push(...line.slice(2).split(' ').map(Number));
    else if (line.startsWith('E ')) errors.push(line.slice(2));
  }
  return { ids, errors };
}
