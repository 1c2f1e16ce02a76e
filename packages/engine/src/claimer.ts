import { EXECUTION_CLASSES, type ExecutionClass, type Logger } from '@nudge/core';
import type { ClaimGroup, ClaimedJob, JobLease, LimitedClaim, Store } from '@nudge/store';
import { EarliestTimer } from './earliest-timer.js';
import { confirmLeases, leaseKey, outlivedHeartbeat } from './lease-confirmation.js';
import type { QueueServing } from './queue-serving.js';
import { ClaimTrigger, type PassOutcome, type TriggerCounts } from './claim-trigger.js';
import type { EmitEngineEvent } from './engine-events.js';

/** How long after a full rate window opens, by the claim's count, the next claim runs, in ms. */
const RATE_WINDOW_MARGIN_MS = 5;

/**
 * How soon after outcomes of other queues a claim looks again at the limited queues the last one
 * found held back, in ms: their room may have come back on another instance. Outcomes of their
 * own jobs claim at once.
 */
export const LIMITED_RECHECK_MS = 100;

/** Claim passes in flight at once. */
const CLAIMS_IN_FLIGHT = 2;

/** Options of a {@link Claimer}. */
export interface ClaimerOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  readonly workerId: string;
  readonly leaseMs: number;
  /**
   * Least time, in ms, between claim queries once they keep finding nothing (see
   * {@link ClaimTrigger}); 0 never waits.
   */
  readonly claimCooldownMs: number;
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
  /** The queues this instance serves, and their caps. */
  readonly serving: QueueServing;
  /** Holds up to `count` of what is left of a capped queue's cap; @returns how many. */
  readonly reserveQueue: (queue: string, cap: number, count: number) => number;
  /** Ends a hold of `reserveQueue`. */
  readonly unreserveQueue: (queue: string, count: number) => void;
  /** Runs what a claim returned, in the slots held for it. */
  readonly start: (jobs: readonly ClaimedJob[]) => void;
  /** The class of a kind. */
  readonly classOf: (kind: string) => ExecutionClass | undefined;
  /**
   * A pass found jobs, failed, or was held back by a limit that another instance may lift: a
   * sign of work for the safety poll.
   */
  readonly onWorkSign: () => void;
}

/** What one claim pass did. */
export interface ClaimPassResult {
  /** Rows claimed. */
  readonly claimed: number;
  /** The claim limit: free slots (capped per class at `maxClaimBatch`); 0 means no query ran. */
  readonly limit: number;
}

/**
 * The claim loop: the one trigger path ({@link request}, coalesced) serves the safety poll,
 * nudges, notifications, enqueues and freed slots. Each pass holds the free slots of every execution class (at
 * most `maxClaimBatch` each) and claims, in one round trip, that many jobs (no prefetch: an
 * instance never holds a job it cannot start); it runs again at once when a class came back full.
 * Two passes may be in flight, each with its own slots, so that the database works on the next
 * claim while the previous one is answered. No query runs when no slot is free.
 */
export class Claimer {
  readonly #options: ClaimerOptions;
  readonly #trigger: ClaimTrigger;
  /** Classes whose last claim came back full, or that were asked for while full. */
  readonly #mayHaveMore = new Set<ExecutionClass>();
  /** Capped queues that were at their cap, or whose last claim came back full. */
  readonly #queuesMayHaveMore = new Set<string>();
  /**
   * Requests that found no free slot and ran nothing; a pass compares the count before and after
   * its round trip to spot the ones it owes a claim.
   */
  #skipped = 0;
  #running = false;
  /**
   * Queues whose cluster-wide limits held back due jobs in the last claim: their room comes back
   * when a job of theirs ends anywhere, which only the database knows, so claim again after
   * written outcomes while there are any (see {@link outcomesWritten}).
   */
  #limitedQueues: ReadonlySet<string> = new Set();
  /** Claims again when a full rate window of a limited queue lets the next job start. */
  readonly #rateWindow = new EarliestTimer(() => this.request());
  /** Claims again a little after outcomes of other queues than the held-back ones. */
  readonly #elsewhere = new EarliestTimer(() => this.request());

  constructor(options: ClaimerOptions) {
    this.#options = options;
    this.#trigger = new ClaimTrigger(
      async (): Promise<PassOutcome> => {
        const { claimed, limit } = await this.runOnce();
        if (limit === 0) return 'skipped';
        if (claimed === 0) return 'empty';
        // A class that came back full may have more: claim again at once while it has room.
        return [...this.#mayHaveMore].some((execution) => options.free(execution) > 0) ? 'full' : 'claimed';
      },
      {
        maxInFlight: CLAIMS_IN_FLIGHT,
        cooldownMs: options.claimCooldownMs,
        onError: (error) => {
          options.logger.error({ err: error }, 'a claim pass failed; the safety poll retries it');
          options.emit('claim:error', { error });
          options.onWorkSign();
        },
      },
    );
  }

  readonly name = 'claimer';

  /** Starts claiming, at once. */
  start(): void {
    this.#running = true;
    this.request();
  }

  /** Stops claiming; resolves once a pass in flight has finished (see {@link idle}). */
  stop(): Promise<void> {
    this.#running = false;
    this.#trigger.cancelDeferred();
    this.#rateWindow.cancel();
    this.#elsewhere.cancel();
    return this.idle();
  }

  /** Resolves when no pass is running or waiting out the claim cooldown. */
  idle(): Promise<void> {
    return this.#trigger.idle();
  }

  /**
   * Claim requests that reached the trigger, and how many of them coalesced into a pass already
   * owed (see {@link TriggerCounts}); requests made while no slot was free are not among them.
   */
  get requestCounts(): TriggerCounts {
    return this.#trigger.counts;
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

  /** Attempts of these queues ended: claim again if a capped one among them may hold more work. */
  queuesFreed(queues: ReadonlySet<string>): void {
    for (const queue of queues) {
      if (this.#queuesMayHaveMore.has(queue)) {
        this.request();
        return;
      }
    }
  }

  /**
   * The outcomes of `leases` (their jobs' queues by `queueOf`) were written: a limited queue the
   * last claim saw held back has room again when one of them is its own (claim at once), and may
   * have it when a job of its ended on another instance, which only the database knows (claim
   * within {@link LIMITED_RECHECK_MS}: at once after every outcome, a busy key cost a drain beside
   * it a claim per outcome batch).
   */
  outcomesWritten(leases: readonly JobLease[], queueOf: (lease: JobLease) => string): void {
    if (this.#limitedQueues.size === 0) return;
    for (const lease of leases) {
      if (this.#limitedQueues.has(queueOf(lease))) {
        this.request();
        return;
      }
    }
    this.#elsewhere.within(LIMITED_RECHECK_MS);
  }

  #onLimited(limited: LimitedClaim): void {
    this.#limitedQueues = new Set(limited.queues);
    if (limited.queues.length > 0) {
      this.#options.emit('claim:held-back', { queues: limited.queues });
      this.#options.onWorkSign();
    }
    if (limited.rateWindows !== undefined && limited.nowMs !== undefined) {
      this.#options.emit('claim:rate-windows', { nowMs: limited.nowMs, rateWindows: limited.rateWindows });
    }
    // A little after the window opens: the database clock decides, and it may run behind ours.
    if (limited.retryInMs !== undefined) this.#rateWindow.within(limited.retryInMs + RATE_WINDOW_MARGIN_MS);
  }

  /**
   * What is left of each capped queue's cap for this pass (held until the claim has started its
   * jobs), at most `limit` each.
   */
  #queueLimits(limit: number, held: Array<[string, number]>): Record<string, number> {
    const limits: Record<string, number> = {};
    for (const [queue, cap] of this.#options.serving.capped) {
      const room = this.#options.reserveQueue(queue, cap, limit);
      limits[queue] = room;
      if (room === 0) this.#queuesMayHaveMore.add(queue);
      else held.push([queue, room]);
    }
    return limits;
  }

  /** One claim pass, now; what the trigger runs. */
  async runOnce(): Promise<ClaimPassResult> {
    if (!this.#running) return { claimed: 0, limit: 0 };
    const groups: ClaimGroup[] = [];
    const classes: ExecutionClass[] = [];
    const heldQueues: Array<[string, number]> = [];
    const { serving } = this.#options;
    for (const execution of EXECUTION_CLASSES) {
      const kinds = this.#options.kinds.get(execution);
      if (!kinds || kinds.length === 0) continue;
      const limit = this.#options.reserve(execution, this.#options.maxClaimBatch);
      groups.push(serving.everyQueue ? { kinds, limit } : { kinds, limit, queues: serving.open });
      classes.push(execution);
    }
    const most = Math.max(0, ...groups.map((group) => group.limit));
    const queueLimits = most > 0 && serving.capped.size > 0 ? this.#queueLimits(most, heldQueues) : undefined;
    const limit = groups.reduce((sum, group) => sum + group.limit, 0);
    const endQueueHolds = (jobs: readonly ClaimedJob[]): void => {
      for (const [queue, room] of heldQueues) {
        this.#options.unreserveQueue(queue, room);
        const claimed = jobs.filter((job) => job.queue === queue).length;
        if (claimed >= room) this.#queuesMayHaveMore.add(queue);
        else this.#queuesMayHaveMore.delete(queue);
      }
    };
    if (limit === 0) {
      endQueueHolds([]);
      return { claimed: 0, limit: 0 };
    }
    this.#options.emit('claim:query', { limit });
    const queryStart = performance.now();
    const skippedBefore = this.#skipped;
    let jobs: ClaimedJob[] = [];
    let limited: LimitedClaim | undefined;
    try {
      jobs = await this.#options.store.claim({
        workerId: this.#options.workerId,
        leaseMs: this.#options.leaseMs,
        groups,
        ...(queueLimits ? { queueLimits } : {}),
        onLimited: (held) => (limited = held),
      });
      if (jobs.length > 0 && outlivedHeartbeat(performance.now() - queryStart, this.#options.leaseMs)) {
        jobs = await this.#keepConfirmed(jobs, performance.now() - queryStart);
      }
      this.#onLimited(limited ?? { queues: [] });
    } catch (error) {
      this.#options.logger.error({ err: error }, 'claim failed; the safety poll retries it');
      this.#options.emit('claim:error', { error });
      this.#options.onWorkSign();
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
    const durationMs = performance.now() - queryStart;
    this.#options.emit(jobs.length > 0 ? 'claim:claimed' : 'claim:empty', {
      count: jobs.length,
      limit,
      durationMs,
    });
    if (jobs.length > 0) {
      this.#options.onWorkSign();
      this.#options.start(jobs);
    }
    // After the start: the started jobs now count as running in their queues.
    endQueueHolds(jobs);
    if (missed && gaveBack) this.request();
    return { claimed: jobs.length, limit };
  }

  /**
   * The jobs of a claim answered later than a heartbeat interval whose leases still hold, renewed
   * (see `outlivedHeartbeat`): the others lapsed while this process waited, and another attempt
   * may run them now, so they do not start here. When the leases cannot be confirmed, none
   * starts: the sweep puts them back once their leases expire, as after a crash.
   */
  async #keepConfirmed(jobs: ClaimedJob[], tookMs: number): Promise<ClaimedJob[]> {
    const { logger, store, leaseMs } = this.#options;
    let held: Set<string>;
    try {
      held = await confirmLeases(store, jobs, leaseMs);
    } catch (error) {
      logger.error(
        { err: error, jobs: jobs.length, tookMs: Math.round(tookMs) },
        'a late claim could not confirm its leases; its jobs are left to the sweep',
      );
      return [];
    }
    const kept = jobs.filter((job) => held.has(leaseKey(job)));
    if (kept.length < jobs.length) {
      logger.warn(
        { lapsed: jobs.length - kept.length, claimed: jobs.length, tookMs: Math.round(tookMs), leaseMs },
        'a claim was answered after its leases could lapse; the jobs another attempt took over were not started',
      );
    }
    return kept;
  }

  #anyFree(): boolean {
    for (const execution of this.#options.kinds.keys()) {
      if (this.#options.free(execution) > 0) return true;
    }
    return false;
  }
}
