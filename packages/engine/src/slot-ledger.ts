import type { ExecutionClass } from '@nudge/core';
import { ClassSlots } from './class-slots.js';
import { QueueSlots } from './queue-slots.js';

/** What the ledger reads of a pool: its places. */
export interface PoolPlaces {
  /** Places not running an attempt now. */
  readonly free: number;
  /** Every place, free or not. */
  readonly capacity: number;
}

/**
 * What claims may take: the free places of each execution class's pool minus the slots held
 * for jobs not started yet ({@link ClassSlots}: a claim in flight, an insert that claims for
 * itself, a re-claim waiting behind its older attempt), and what is left of each capped queue's
 * cap on this instance ({@link QueueSlots}). The claimer and the self-claiming enqueue hold slots
 * here before they claim; the attempt supervisor turns held slots into running attempts.
 */
export class SlotLedger {
  readonly #pools: ReadonlyMap<ExecutionClass, PoolPlaces>;
  readonly #onSlotsFreed: (execution: ExecutionClass) => void;
  readonly #classes = new ClassSlots();
  /** Attempts running per queue, and queue slots held for claims in flight (capped queues). */
  readonly queues = new QueueSlots();
  #closed = false;

  /**
   * @param pools - the pool of each class that has kinds
   * @param onSlotsFreed - held slots of a class were given back unused
   */
  constructor(
    pools: ReadonlyMap<ExecutionClass, PoolPlaces>,
    onSlotsFreed: (execution: ExecutionClass) => void,
  ) {
    this.#pools = pools;
    this.#onSlotsFreed = onSlotsFreed;
  }

  /** Slots of `execution` that can take a job now. */
  free(execution: ExecutionClass): number {
    const pool = this.#pools.get(execution);
    return pool ? Math.max(0, pool.free - this.#classes.held(execution)) : 0;
  }

  /** Every slot, free or not, of `execution`. */
  capacity(execution: ExecutionClass): number {
    return this.#pools.get(execution)?.capacity ?? 0;
  }

  /**
   * Holds up to `count` free slots of `execution` for jobs about to be claimed, so that nothing
   * else takes them meanwhile.
   * @returns how many were held (0 when none is free, or after {@link close})
   */
  reserve(execution: ExecutionClass, count: number): number {
    const held = this.#closed ? 0 : Math.min(count, this.free(execution));
    this.#classes.hold(execution, held);
    return held;
  }

  /** Gives back `count` held slots unused, and says so (a claim may take them). */
  unreserve(execution: ExecutionClass, count: number): void {
    if (count <= 0) return;
    this.#classes.release(execution, count);
    this.#onSlotsFreed(execution);
  }

  /** Holds one slot of `execution` whatever is free (a re-claim waiting behind its older attempt). */
  hold(execution: ExecutionClass): void {
    this.#classes.hold(execution, 1);
  }

  /** Ends the hold of one slot because its job starts in it now (no claim is told). */
  takeHeld(execution: ExecutionClass): void {
    this.#classes.release(execution, 1);
  }

  /**
   * Holds up to `count` of what is left of a queue's `cap` on this instance (running attempts of
   * the queue and other holds count against it) for a claim in flight.
   * @returns how many were held (0 after {@link close})
   */
  reserveQueue(queue: string, cap: number, count: number): number {
    return this.queues.hold(queue, cap, count, this.#closed);
  }

  /** Ends a hold of {@link reserveQueue} (after the claimed jobs were started). */
  unreserveQueue(queue: string, count: number): void {
    this.queues.release(queue, count);
  }

  /** Shutdown: nothing more can be held. */
  close(): void {
    this.#closed = true;
  }
}
