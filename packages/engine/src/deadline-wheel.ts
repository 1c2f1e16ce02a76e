/**
 * Deadlines of running attempts, bucketed by time so that adding and removing one costs O(1)
 * whatever the number running, and one timer serves them all. A deadline fires within one
 * resolution after it passes, never before.
 */
export class DeadlineWheel {
  readonly #resolutionMs: number;
  readonly #onDue: (id: number) => void;
  readonly #buckets = new Map<number, Set<number>>();
  readonly #bucketOf = new Map<number, number>();
  #timer: NodeJS.Timeout | undefined;
  #timerBucket = Number.POSITIVE_INFINITY;

  /**
   * @param resolutionMs - width of a bucket, in ms
   * @param onDue - called once per id whose deadline passed, unless it was removed first
   */
  constructor(resolutionMs: number, onDue: (id: number) => void) {
    this.#resolutionMs = Math.max(1, Math.round(resolutionMs));
    this.#onDue = onDue;
  }

  /** Deadlines waiting. */
  get size(): number {
    return this.#bucketOf.size;
  }

  /** Sets (or moves) the deadline of `id` to `atMs` (`performance.now()` time). */
  add(id: number, atMs: number): void {
    this.remove(id);
    // The bucket after the one holding atMs: fire late by up to one resolution, never early.
    const bucket = Math.floor(atMs / this.#resolutionMs) + 1;
    let set = this.#buckets.get(bucket);
    if (!set) this.#buckets.set(bucket, (set = new Set()));
    set.add(id);
    this.#bucketOf.set(id, bucket);
    if (bucket < this.#timerBucket) this.#arm(bucket);
  }

  /** Forgets the deadline of `id`. */
  remove(id: number): void {
    const bucket = this.#bucketOf.get(id);
    if (bucket === undefined) return;
    this.#bucketOf.delete(id);
    const set = this.#buckets.get(bucket);
    set?.delete(id);
    if (set?.size === 0) this.#buckets.delete(bucket);
  }

  /** Forgets every deadline and stops the timer. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerBucket = Number.POSITIVE_INFINITY;
    this.#buckets.clear();
    this.#bucketOf.clear();
  }

  #arm(bucket: number): void {
    clearTimeout(this.#timer);
    this.#timerBucket = bucket;
    const delay = Math.max(0, bucket * this.#resolutionMs - performance.now());
    this.#timer = setTimeout(() => this.#fire(), delay);
    this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerBucket = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [bucket, ids] of this.#buckets) {
      if (bucket * this.#resolutionMs > now) {
        next = Math.min(next, bucket);
        continue;
      }
      this.#buckets.delete(bucket);
      for (const id of ids) {
        this.#bucketOf.delete(id);
        this.#onDue(id);
      }
    }
    // onDue may have added deadlines and armed the timer already.
    if (next < this.#timerBucket) this.#arm(next);
  }
}
