import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The step ledger of the durable-steps scenario: every run of a step's function appends an `R`
 * line, and every attempt that gets past a signal wait a `W` line with what the wait returned,
 * to a file of its own process (`<dir>/<pid>.steps`, opened for appending: one `write` a line).
 * Written outside the database, so a step run whose write was fenced out, or whose process was
 * killed before its write, still shows. Times are the wall clock (`Date.now()`), which the
 * checks compare with times the database wrote on the same machine.
 */

/** A run of a step's function. */
export interface StepRun {
  readonly jobId: number;
  readonly step: string;
  readonly attempt: number;
  readonly version: number;
  readonly pid: number;
  /** When the function started, epoch ms. */
  readonly at: number;
  /** `<pid>:<version>:<step>`: what the run returns, so the stored result names its run. */
  readonly token: string;
}

/** What a signal wait returned to an attempt. */
export interface WaitReturn {
  readonly jobId: number;
  readonly name: string;
  readonly attempt: number;
  readonly version: number;
  readonly pid: number;
  readonly at: number;
  /** The payload as JSON text; `null` for a wait that timed out. */
  readonly payloadJson: string;
}

/** The token of a run: what its step returns. */
export const runToken = (pid: number, version: number, step: string): string => `${pid}:${version}:${step}`;

const fileOf = (dir: string): string => join(dir, `${process.pid}.steps`);

/** Appends the start of a step's run; @returns its token. */
export function recordStepRun(
  dir: string,
  jobId: number,
  step: string,
  attempt: number,
  version: number,
): string {
  appendFileSync(fileOf(dir), `R ${jobId} ${step} ${attempt} ${version} ${process.pid} ${Date.now()}\n`);
  return runToken(process.pid, version, step);
}

/** Appends what signal wait `name` returned to an attempt. */
export function recordWaitReturn(
  dir: string,
  jobId: number,
  name: string,
  attempt: number,
  version: number,
  payload: unknown,
): void {
  appendFileSync(
    fileOf(dir),
    `W ${jobId} ${name} ${attempt} ${version} ${process.pid} ${Date.now()} ${JSON.stringify(payload ?? null)}\n`,
  );
}

/** Reads every process's step ledger in `dir`: runs and wait returns, each in time order. */
export function readStepLedger(dir: string): { runs: StepRun[]; waits: WaitReturn[] } {
  const runs: StepRun[] = [];
  const waits: WaitReturn[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.steps'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const [type, jobId, name, attempt, version, pid, at, ...rest] = line.split(' ');
      // A line cut short by SIGKILL is not a line.
      if (!type || !name || at === undefined || !/^\d+$/.test(at)) continue;
      const common = {
        jobId: Number(jobId),
        attempt: Number(attempt),
        version: Number(version),
        pid: Number(pid),
        at: Number(at),
      };
      if (type === 'R')
        runs.push({ ...common, step: name, token: runToken(common.pid, common.version, name) });
      else if (type === 'W' && rest.length > 0) waits.push({ ...common, name, payloadJson: rest.join(' ') });
    }
  }
  runs.sort((a, b) => a.at - b.at);
  waits.sort((a, b) => a.at - b.at);
  return { runs, waits };
}
