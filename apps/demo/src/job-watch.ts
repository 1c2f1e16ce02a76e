import { setTimeout as sleep } from 'node:timers/promises';
import { isFinished, type JobView } from './job-view.js';
import type { NudgeClient } from './nudge-client.js';

/** Options of {@link JobWatch}. */
export interface JobWatchOptions {
  /** Pause between polling rounds, in ms. */
  readonly pollIntervalMs: number;
  /** Longest wait for every job to finish, in ms, counted from {@link JobWatch.run}. */
  readonly timeoutMs: number;
  /**
   * Most jobs polled per round, lowest ids first; the rest wait for a later round. Servers claim
   * jobs oldest first, so the lowest unfinished ids are the ones running: a limit near the
   * server's thread count finds every finish about as soon, with far fewer requests for a server
   * whose cores are busy with the jobs. @defaultValue every unfinished job
   */
  readonly pollLimit?: number;
}

/** One polling round: the jobs that finished in it and those polled still under way. */
export interface WatchRound {
  readonly finished: readonly JobView[];
  readonly unfinished: readonly JobView[];
}

/**
 * Polls `GET /jobs/:id` for a growing set of jobs until every one is SUCCEEDED, FAILED or
 * CANCELLED. The round callback may add jobs (e.g. follow-up jobs for those that finished).
 */
export class JobWatch {
  readonly #client: NudgeClient;
  readonly #options: JobWatchOptions;
  readonly #unfinished = new Set<number>();
  readonly #finished = new Map<number, JobView>();

  /** Watches no job until {@link JobWatch.add} is called. */
  constructor(client: NudgeClient, options: JobWatchOptions) {
    this.#client = client;
    this.#options = options;
  }

  /** Adds jobs to wait for. */
  add(ids: readonly number[]): void {
    for (const id of ids) if (!this.#finished.has(id)) this.#unfinished.add(id);
  }

  /**
   * Polls until no job is unfinished, calling `onRound` after every round (awaited before the next).
   *
   * @returns the final view of every job, by ascending id
   * @throws Error after `timeoutMs`, naming the jobs still unfinished and their states
   * @throws ServerUnreachableError when the server cannot be reached
   */
  async run(onRound: (round: WatchRound) => Promise<void> | void): Promise<JobView[]> {
    const deadline = Date.now() + this.#options.timeoutMs;
    while (this.#unfinished.size > 0) {
      const ids = [...this.#unfinished].sort((a, b) => a - b).slice(0, this.#options.pollLimit);
      const views = await Promise.all(ids.map((id) => this.#client.getJob(id)));
      const finished = views.filter(isFinished);
      for (const view of finished) {
        this.#unfinished.delete(view.id);
        this.#finished.set(view.id, view);
      }
      await onRound({ finished, unfinished: views.filter((view) => !isFinished(view)) });
      if (this.#unfinished.size === 0) break;
      if (Date.now() > deadline) {
        const left = views.filter((view) => !isFinished(view));
        const sample = left.slice(0, 5).map((v) => `#${v.id} ${v.kind} ${v.status}, attempt ${v.attempts}`);
        throw new Error(
          `timed out after ${this.#options.timeoutMs} ms with ${this.#unfinished.size} job(s) unfinished: ${sample.join('; ')}`,
        );
      }
      await sleep(this.#options.pollIntervalMs);
    }
    return [...this.#finished.values()].sort((a, b) => a.id - b.id);
  }
}
