import type { ClaimedJob } from '@nudge/store';

/**
 * Claims of jobs whose older attempt still runs here (the sweep recovered the job from a stall of
 * this instance, and this instance claimed it again), each holding a slot of its class: one
 * starts once its older attempt, aborted as lost, has ended, so that one job never has two
 * attempts here. A newer claim of the same job takes the place of a waiting one.
 */
export class ReclaimWaitingList {
  readonly #waiting = new Map<number, ClaimedJob>();
  /** Ids of {@link #waiting} whose older attempt ended: they start when their pool has a place. */
  readonly #ready = new Set<number>();

  /** Claims waiting. */
  get size(): number {
    return this.#waiting.size;
  }

  /** Claims whose older attempt ended. */
  get readyCount(): number {
    return this.#ready.size;
  }

  /**
   * Puts `job` in the list, in place of any waiting claim of the same job.
   * @returns whether it is a new entry (one that needs a slot held for it)
   */
  add(job: ClaimedJob): boolean {
    const added = !this.#waiting.has(job.id);
    this.#waiting.set(job.id, job);
    return added;
  }

  /** The waiting claim of job `id`. */
  get(id: number): ClaimedJob | undefined {
    return this.#waiting.get(id);
  }

  /** The older attempt of job `id` ended: its waiting claim, if any, may start. */
  olderEnded(id: number): void {
    if (this.#waiting.has(id)) this.#ready.add(id);
  }

  /** The claims that may start, in the order their older attempts ended. */
  ready(): ClaimedJob[] {
    const jobs: ClaimedJob[] = [];
    for (const id of this.#ready) {
      const job = this.#waiting.get(id);
      if (job) jobs.push(job);
      else this.#ready.delete(id);
    }
    return jobs;
  }

  /** Takes job `id` off the list (it starts, or its claim was lost). */
  remove(id: number): void {
    this.#waiting.delete(id);
    this.#ready.delete(id);
  }
}
