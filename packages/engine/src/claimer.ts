import { EXECUTION_CLASSES, type ExecutionClass, type Logger } from '@nudge/core';
import type { ClaimGroup, ClaimedJob, Store } from '@nudge/store';
import { ClaimTrigger } from './claim-trigger.js';
import type { EmitEngineEvent } from './engine-events.js';
import { PeriodicTimer } from './periodic-timer.js';

/** Claim passes in flight at once. */
const CLAIMS_IN_FLIGHT = 2;

/** Options of a {@link Claimer}. */
export interface ClaimerOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  readonly workerId: string;
  readonly leaseMs: number;
  /** Time between polls, in ms (jittered ±10 %). */
  readonly pollIntervalMs: number;
  /** Most rows one claim takes per class. */
  readonly maxClaimBatch: number;
  /** The kinds of each class this instance can run. */
  readonly kinds: ReadonlyMap<ExecutionClass, readonly string[]>;
  /** Free slots of a class now (not held for another claim). */
  readonly free: (execution: ExecutionClass) => number;
  /** Holds up to `count` free slots of a class for a claim in flight; @returns how many. */
  readonly reserve: (execution: ExecutionClass, count: number) => number;
  /** Gives held slots back unused. */
  readonly unreserve: (execution: ExecutionClass, count: number) => void;
  /** Runs what a claim returned, in the slots held for it. */
  readonly start: (jobs: readonly ClaimedJob[]) => void;
  /** The class of a kind. */
  readonly classOf: (kind: string) => ExecutionClass | undefined;
}

/** What one claim pass did. */
export interface ClaimPassResult {
  /** Rows claimed. */
  readonly claimed: number;
  /** The claim limit: free slots (capped per class at `maxClaimBatch`); 0 means no query ran. */
  readonly limit: number;
}

/**
 * The claim loop: the one trigger path ({@link request}, coalesced) serves the poll timer,
 * nudges, enqueues and freed slots. Each pass holds the free slots of every execution class (at
 * most `maxClaimBatch` each) and claims, in one round trip, that many jobs (no prefetch: an
 * instance never holds a job it cannot start); it runs again at once when a class came back full.
 * Two passes may be in flight, each with its own slots, so that the database works on the next
 * claim while the previous one is answered. No query runs when no slot is free.
 */
export class Claimer {
  readonly #options: ClaimerOptions;
  readonly #trigger: ClaimTrigger;
  readonly #poll: PeriodicTimer;
  /** Classes whose last claim came back full, or that were asked for while full. */
  readonly #mayHaveMore = new Set<ExecutionClass>();
  /**
   * Requests that found no free slot and ran nothing; a pass compares the count before and after
   * its round trip to spot the ones it owes a claim.
   */
  #skipped = 0;
  #running = false;

  constructor(options: ClaimerOptions) {
    this.#options = options;
    this.#trigger = new ClaimTrigger(async () => {
      const { claimed } = await this.runOnce();
      // A class that came back full may have more: claim again at once while it has room.
      return claimed > 0 && [...this.#mayHaveMore].some((execution) => options.free(execution) > 0);
    }, CLAIMS_IN_FLIGHT);
    this.#poll = new PeriodicTimer(
      async () => this.request(),
      options.pollIntervalMs,
      (error) => options.logger.error({ err: error }, 'poll failed'),
    );
  }

  /** Starts polling and claims at once. */
  start(): void {
    this.#running = true;
    this.#poll.start();
    this.request();
  }

  /** Stops polling and claiming; a pass in flight finishes (see {@link idle}). */
  stop(): void {
    this.#running = false;
    this.#poll.stop();
  }

  /** Resolves when no pass is running. */
  idle(): Promise<void> {
    return this.#trigger.idle();
  }

  /** Asks for a claim pass (coalesced); returns at once. Nothing happens when no slot is free. */
  request(): void {
    if (!this.#running) return;
    if (!this.#anyFree()) {
      this.#skipped += 1;
      for (const execution of this.#options.kinds.keys()) this.#mayHaveMore.add(execution);
      return;
    }
    this.#trigger.request();
  }

  /** Slots of `execution` were freed: claim again if its queue may hold more work. */
  slotsFreed(execution: ExecutionClass): void {
    if (this.#mayHaveMore.has(execution)) this.request();
  }

  /** One claim pass, now; what the trigger runs. */
  async runOnce(): Promise<ClaimPassResult> {
    if (!this.#running) return { claimed: 0, limit: 0 };
    const groups: ClaimGroup[] = [];
    const classes: ExecutionClass[] = [];
    for (const execution of EXECUTION_CLASSES) {
      const kinds = this.#options.kinds.get(execution);
      if (!kinds || kinds.length === 0) continue;
      groups.push({ kinds, limit: this.#options.reserve(execution, this.#options.maxClaimBatch) });
      classes.push(execution);
    }
    const limit = groups.reduce((sum, group) => sum + group.limit, 0);
    if (limit === 0) return { claimed: 0, limit: 0 };
    this.#options.emit('claim:query', { limit });
    const skippedBefore = this.#skipped;
    let jobs: ClaimedJob[] = [];
    try {
      jobs = await this.#options.store.claim({
        workerId: this.#options.workerId,
        leaseMs: this.#options.leaseMs,
        groups,
      });
    } catch (error) {
      this.#options.logger.error({ err: error }, 'claim failed; the poll loop will retry');
      this.#options.emit('claim:error', { error });
    }
    const counts = new Map<ExecutionClass, number>();
    for (const job of jobs) {
      const execution = this.#options.classOf(job.kind);
      if (execution) counts.set(execution, (counts.get(execution) ?? 0) + 1);
    }
    // A request during the round trip (a nudge, a notification) may be for a job this claim's
    // snapshot could not see; if it found every slot held by this pass, it ran no query. So once
    // this pass has given its unused slots back, it requests again, once for all such requests.
    // (A request that found a free slot started or queued a pass of its own.)
    const missed = this.#skipped !== skippedBefore;
    let gaveBack = false;
    classes.forEach((execution, i) => {
      const groupLimit = groups[i]?.limit ?? 0;
      const claimed = counts.get(execution) ?? 0;
      if (groupLimit > 0 && claimed >= groupLimit) this.#mayHaveMore.add(execution);
      else if (groupLimit > 0) this.#mayHaveMore.delete(execution);
      if (groupLimit > claimed) gaveBack = true;
      this.#options.unreserve(execution, groupLimit - claimed);
    });
    this.#options.emit(jobs.length > 0 ? 'claim:claimed' : 'claim:empty', { count: jobs.length, limit });
    if (jobs.length > 0) this.#options.start(jobs);
    if (missed && gaveBack) this.request();
    return { claimed: jobs.length, limit };
  }

  #anyFree(): boolean {
    for (const execution of this.#options.kinds.keys()) {
      if (this.#options.free(execution) > 0) return true;
    }
    return false;
  }
}
