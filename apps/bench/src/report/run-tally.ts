import { randomBytes } from 'node:crypto';

/** What a measurement's reports say about exactly-once execution. */
export interface ExactlyOnce {
  /** Jobs whose handler never reported. */
  readonly lost: number;
  /** Extra runs: reports beyond the first for the same job, summed over jobs. */
  readonly duplicate: number;
}

interface Waiter {
  readonly seq: number | undefined;
  readonly resolve: () => void;
}

/**
 * Counts, per job of one measurement, how many times its handler reported, and keeps the receipt
 * time of each job's first report (ms on the client's `performance.now()` clock).
 */
export class RunTally {
  /** Random id carried in the jobs' payloads and in their reports. */
  readonly run = randomBytes(4).toString('hex');
  readonly jobs: number;
  readonly #counts: Uint32Array;
  readonly #firstAtMs: Float64Array;
  readonly #onClose: () => void;
  #distinct = 0;
  #lastAtMs = Number.NaN;
  #waiters: Waiter[] = [];

  /** @param onClose - called once by {@link close} */
  constructor(jobs: number, onClose: () => void = () => undefined) {
    this.jobs = jobs;
    this.#counts = new Uint32Array(jobs);
    this.#firstAtMs = new Float64Array(jobs).fill(Number.NaN);
    this.#onClose = onClose;
  }

  /** Counts a report of job `seq` received at `atMs`; `false` when `seq` is out of range. */
  record(seq: number, atMs: number): boolean {
    if (!Number.isInteger(seq) || seq < 0 || seq >= this.jobs) return false;
    const count = (this.#counts[seq] ?? 0) + 1;
    this.#counts[seq] = count;
    this.#lastAtMs = atMs;
    if (count === 1) {
      this.#firstAtMs[seq] = atMs;
      this.#distinct += 1;
      this.#waiters = this.#waiters.filter((waiter) => {
        const done = waiter.seq === undefined ? this.#distinct === this.jobs : waiter.seq === seq;
        if (done) waiter.resolve();
        return !done;
      });
    }
    return true;
  }

  /** Jobs that reported at least once. */
  get distinct(): number {
    return this.#distinct;
  }

  /** Receipt time of the latest report, in ms; `NaN` before any. */
  get lastAtMs(): number {
    return this.#lastAtMs;
  }

  /** Receipt time of job `seq`'s first report, in ms; `NaN` if it has not reported. */
  firstAtMs(seq: number): number {
    return this.#firstAtMs[seq] ?? Number.NaN;
  }

  /**
   * Resolves `true` once job `seq` (or, without `seq`, every job) has reported, `false` after
   * `timeoutMs` without it.
   */
  async waitFor(seq: number | undefined, timeoutMs: number): Promise<boolean> {
    const done = seq === undefined ? this.#distinct === this.jobs : (this.#counts[seq] ?? 0) > 0;
    if (done) return true;
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        seq,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((other) => other !== waiter);
        resolve(false);
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Lost and duplicated runs as counted so far. */
  exactlyOnce(): ExactlyOnce {
    let duplicate = 0;
    for (const count of this.#counts) if (count > 1) duplicate += count - 1;
    return { lost: this.jobs - this.#distinct, duplicate };
  }

  /** Stops routing reports here; later reports of this run count as stray. */
  close(): void {
    this.#onClose();
  }
}
