import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The execution ledger: every handler execution appends a `start` line and, if it ends, an `end`
 * line to a file of its own process (`<dir>/<pid>.log`, opened for appending: each line is one
 * `write`, so lines of concurrent threads never interleave). Written outside the database, so a
 * rolled-back or fenced write cannot hide an execution.
 */

/** Milliseconds since the epoch from the monotonic clock's origin: unaffected by a skewed `Date`. */
export function ledgerNow(): number {
  return Math.round(performance.timeOrigin + performance.now());
}

/** Appends the start of an attempt. */
export function recordStart(dir: string, id: number, version: number, attempt: number): void {
  appendFileSync(
    join(dir, `${process.pid}.log`),
    `S ${id} ${version} ${attempt} ${process.pid} ${ledgerNow()}\n`,
  );
}

/** Appends the end of an attempt: `ok` when the handler returned, else `err`. */
export function recordEnd(dir: string, id: number, version: number, ok: boolean): void {
  appendFileSync(
    join(dir, `${process.pid}.log`),
    `E ${id} ${version} 0 ${process.pid} ${ledgerNow()} ${ok ? 'ok' : 'err'}\n`,
  );
}

/** One execution of a handler, as the ledger saw it. */
export interface LedgerAttempt {
  readonly id: number;
  readonly version: number;
  readonly attempt: number;
  readonly pid: number;
  /** When it started, ms since the epoch. */
  readonly startedAt: number;
  /** When it ended, ms since the epoch; absent when its process died or it never settled. */
  endedAt?: number;
  ok?: boolean;
}

/** Reads every process's ledger file in `dir`: the attempts, in start order. */
export function readLedger(dir: string): LedgerAttempt[] {
  const attempts = new Map<string, LedgerAttempt>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.log'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const [type, id, version, attempt, pid, at, result] = line.split(' ');
      if (!type || at === undefined) continue; // a line cut short by SIGKILL is not a line
      const key = `${id}:${version}:${pid}`;
      if (type === 'S') {
        attempts.set(key, {
          id: Number(id),
          version: Number(version),
          attempt: Number(attempt),
          pid: Number(pid),
          startedAt: Number(at),
        });
      } else if (type === 'E') {
        const entry = attempts.get(key);
        if (entry) {
          entry.endedAt = Number(at);
          entry.ok = result === 'ok';
        }
      }
    }
  }
  return [...attempts.values()].sort((a, b) => a.startedAt - b.startedAt);
}
