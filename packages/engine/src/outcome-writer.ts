import type { Logger } from '@nudge/core';
import type { CompleteInput, FailInput, JobLease, Store, SuspendInput } from '@nudge/store';
import type { EmitEngineEvent, JobLabels } from './engine-events.js';
import { writeSuspends } from './suspend-writes.js';

/** The outcome of one attempt, to be written to the store, with the job it is of (for events and logs). */
export type Outcome =
  | { readonly type: 'complete'; readonly input: CompleteInput; readonly job: JobLabels }
  | { readonly type: 'fail'; readonly input: FailInput; readonly job: JobLabels }
  | { readonly type: 'release'; readonly input: JobLease; readonly job: JobLabels }
  | { readonly type: 'suspend'; readonly input: SuspendInput; readonly job: JobLabels };

/** The labels of a job the writer knows nothing of (never the case for outcomes it was given). */
const UNKNOWN_JOB: JobLabels = { kind: '', queue: '', attempt: 0 };

/** The job of each outcome of a batch, by job id. */
type LabelsById = ReadonlyMap<number, JobLabels>;

/** Options of an {@link OutcomeWriter}. */
export interface OutcomeWriterOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  /**
   * Called with the leases whose outcome is settled in the database (written or fenced out), and
   * how to read the queue of each one's job (asked only by a caller that needs it).
   */
  readonly onWritten: (leases: readonly JobLease[], queueOf: (lease: JobLease) => string) => void;
  /** A written outcome made a job runnable now (a release, a due follow-up). @defaultValue no-op */
  readonly onRunnable?: () => void;
  /**
   * A written outcome scheduled a job `delayMs` ms from now (a retry's backoff, a delayed
   * follow-up). @defaultValue no-op
   */
  readonly onScheduled?: (delayMs: number) => void;
  /**
   * Called with the leases of a batch before it is written, and when the oldest of its outcomes
   * was pushed (`performance.now()` time), to let what must precede the outcomes go first (their
   * `ctx.log` lines); must never reject, and bounds its own wait from that time, so that an
   * outcome queued behind others is not held once more.
   * @defaultValue no wait
   */
  readonly beforeWrite?: (leases: readonly JobLease[], oldestPushedAt: number) => Promise<void>;
  /** Most outcomes in one statement. @defaultValue 1000 */
  readonly maxBatch?: number;
  /** First wait after a failed write, in ms; doubles on each failure in a row. @defaultValue 100 */
  readonly retryBaseMs?: number;
  /** Longest wait between retries, in ms. @defaultValue 10000 */
  readonly retryMaxMs?: number;
  /** A failing write is logged at most once per this many ms. @defaultValue 10000 */
  readonly logIntervalMs?: number;
}

/**
 * Writes attempt outcomes in batches: an outcome is written at once when no write is in flight,
 * and outcomes that arrive during a write go together in the next one (one statement per kind
 * of outcome, at most `maxBatch` rows), so the delay is bounded by one write. A failed write keeps
 * its outcomes and retries with exponential backoff, logging once per interval; leases keep being
 * renewed meanwhile, and if one is lost anyway the fenced write simply records nothing.
 */
export class OutcomeWriter {
  readonly #options: Required<OutcomeWriterOptions>;
  #queue: Outcome[] = [];
  /** When each queued outcome was pushed (`performance.now()`). */
  readonly #pushedAt = new WeakMap<Outcome, number>();
  /** The drain running, if any: resolves `true` once it emptied the queue, `false` if it gave up. */
  #flushing: Promise<boolean> | undefined;
  /** Ends the backoff wait of the running drain early. */
  #cutBackoff: (() => void) | undefined;
  #giveUp = false;
  /** Outcomes in the write in flight. */
  #writing = 0;
  #failuresInARow = 0;
  #lastLoggedAt = Number.NEGATIVE_INFINITY;
  #unloggedFailures = 0;

  constructor(options: OutcomeWriterOptions) {
    this.#options = {
      maxBatch: 1000,
      retryBaseMs: 100,
      retryMaxMs: 10_000,
      logIntervalMs: 10_000,
      onRunnable: () => undefined,
      onScheduled: () => undefined,
      beforeWrite: () => Promise.resolve(),
      ...options,
    };
  }

  /** Outcomes not yet written: queued, or in a write that has not returned. */
  get pending(): number {
    return this.#queue.length + this.#writing;
  }

  /** Queues an outcome and starts a write unless one is running. */
  push(outcome: Outcome): void {
    this.#pushedAt.set(outcome, performance.now());
    this.#queue.push(outcome);
    this.#startDrain();
  }

  /**
   * Resolves once every queued outcome is written. With `giveUp` (shutdown), resolves instead
   * after the first failed write from now on (a write waiting out its backoff is tried at once),
   * leaving the unwritten outcomes queued: their leases expire and the sweep recovers the jobs.
   */
  async flush(giveUp = false): Promise<void> {
    this.#giveUp = giveUp;
    try {
      while (this.#queue.length > 0 || this.#flushing) {
        if (this.#flushing) {
          this.#cutBackoff?.();
          if (!(await this.#flushing) && giveUp) return;
        } else if (!(await this.#writeBatch()) && giveUp) return;
      }
    } finally {
      this.#giveUp = false;
    }
  }

  #startDrain(): void {
    if (this.#flushing) return;
    this.#flushing = this.#drain().then((emptied) => {
      this.#flushing = undefined;
      // An outcome pushed after the drain's last check but before this callback found a drain
      // still marked as running and started none: it would wait for the next push.
      if (emptied && this.#queue.length > 0) this.#startDrain();
      return emptied;
    });
  }

  /** Writes until the queue is empty (`true`), or a write failed while giving up (`false`). */
  async #drain(): Promise<boolean> {
    while (this.#queue.length > 0) {
      if (await this.#writeBatch()) continue;
      if (this.#giveUp) return false;
      const delay = Math.min(
        this.#options.retryMaxMs,
        this.#options.retryBaseMs * 2 ** Math.min(30, this.#failuresInARow - 1),
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.#cutBackoff = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#cutBackoff = undefined;
    }
    return true;
  }

  async #writeBatch(): Promise<boolean> {
    const batch = this.#queue.splice(0, this.#options.maxBatch);
    this.#writing = batch.length;
    try {
      let oldest = performance.now();
      for (const outcome of batch) oldest = Math.min(oldest, this.#pushedAt.get(outcome) ?? oldest);
      await this.#options.beforeWrite(
        batch.map((outcome) => outcome.input),
        oldest,
      );
      return await this.#writeOutcomes(batch);
    } finally {
      this.#writing = 0;
    }
  }

  async #writeOutcomes(batch: readonly Outcome[]): Promise<boolean> {
    // Rows the store left out of this batch's writes (it logged them at error level): settled as
    // far as this instance goes, like a fenced-out outcome; the sweep recovers the job once its
    // lease expires.
    const isolated = new Set<number>();
    const stopListening = this.#options.store.onIsolatedWrite(({ jobId }) => isolated.add(jobId));
    try {
      return await this.#writeKinds(batch, isolated);
    } finally {
      stopListening();
    }
  }

  async #writeKinds(batch: readonly Outcome[], isolated: ReadonlySet<number>): Promise<boolean> {
    const completes: CompleteInput[] = [];
    const fails: FailInput[] = [];
    const releases: JobLease[] = [];
    const suspends: SuspendInput[] = [];
    const labels = new Map<number, JobLabels>();
    for (const outcome of batch) {
      labels.set(outcome.input.id, outcome.job);
      if (outcome.type === 'complete') completes.push(outcome.input);
      else if (outcome.type === 'fail') fails.push(outcome.input);
      else if (outcome.type === 'suspend') suspends.push(outcome.input);
      else releases.push(outcome.input);
    }
    const steps: Array<[Outcome['type'], readonly JobLease[], () => Promise<void>]> = [
      ['complete', completes, () => this.#writeCompletes(completes, labels, isolated)],
      ['fail', fails, () => this.#writeFails(fails, labels, isolated)],
      ['release', releases, () => this.#writeReleases(releases, labels, isolated)],
      ['suspend', suspends, () => this.#writeSuspends(suspends, labels, isolated)],
    ];
    for (const [index, [type, inputs, write]] of steps.entries()) {
      if (inputs.length === 0) continue;
      try {
        await write();
      } catch (error) {
        // Keep what was not written; each kind of outcome is one statement, all or nothing.
        const unwritten = batch.filter((o) => steps.slice(index).some(([t]) => t === o.type));
        this.#queue.unshift(...unwritten);
        this.#reportFailure(error, type, unwritten.length);
        return false;
      }
      this.#options.onWritten(inputs, (lease) => labels.get(lease.id)?.queue ?? '');
    }
    if (this.#failuresInARow > 0) {
      this.#options.logger.info({ failures: this.#failuresInARow }, 'writing job outcomes works again');
    }
    this.#failuresInARow = 0;
    return true;
  }

  #reportFailure(error: unknown, type: Outcome['type'], outcomes: number): void {
    this.#failuresInARow += 1;
    this.#options.emit('outcome:error', { error });
    const now = performance.now();
    if (now - this.#lastLoggedAt < this.#options.logIntervalMs) {
      this.#unloggedFailures += 1;
      return;
    }
    this.#options.logger.error(
      {
        err: error,
        outcome: type,
        outcomes,
        failuresInARow: this.#failuresInARow,
        notLogged: this.#unloggedFailures,
      },
      'writing job outcomes failed; retrying with backoff',
    );
    this.#lastLoggedAt = now;
    this.#unloggedFailures = 0;
  }

  async #writeCompletes(
    inputs: readonly CompleteInput[],
    labels: LabelsById,
    isolated: ReadonlySet<number>,
  ): Promise<void> {
    const written = await this.#options.store.complete(inputs);
    for (const lease of written) {
      const { kind, queue, attempt } = labels.get(lease.id) ?? UNKNOWN_JOB;
      this.#options.emit('job:succeeded', { id: lease.id, version: lease.version, kind, queue, attempt });
    }
    if (inputs.some((input) => input.followUps !== undefined)) this.#reportFollowUps(inputs, written);
    // Its dependents may now be runnable: nothing else wakes the claim on SQLite (an instance's
    // own commits do not) or on PostgreSQL without LISTEN.
    if (written.some((lease) => lease.hasDependents === true)) this.#options.onRunnable();
    this.#reportLost('complete', inputs, written, labels, isolated);
  }

  #reportFollowUps(inputs: readonly CompleteInput[], written: readonly JobLease[]): void {
    const recorded = new Set(written.map((lease) => lease.id));
    for (const { id, version, followUps } of inputs) {
      if (!followUps || !recorded.has(id)) continue;
      let due = false;
      let nextDelayMs: number | null = null;
      for (const followUp of followUps) {
        const delay = followUp.runAt ? followUp.runAt.getTime() - Date.now() : (followUp.delayMs ?? 0);
        if (delay <= 0) due = true;
        else nextDelayMs = Math.min(nextDelayMs ?? delay, delay);
      }
      this.#options.emit('job:followed-up', { id, version, followUps: followUps.length, due, nextDelayMs });
      if (due) this.#options.onRunnable();
      if (nextDelayMs !== null) this.#options.onScheduled(nextDelayMs);
    }
  }

  async #writeFails(
    inputs: readonly FailInput[],
    labels: LabelsById,
    isolated: ReadonlySet<number>,
  ): Promise<void> {
    const written = await this.#options.store.fail(inputs);
    const byId = new Map(inputs.map((input) => [input.id, input]));
    for (const outcome of written) {
      const input = byId.get(outcome.id);
      const { kind, queue, attempt } = labels.get(outcome.id) ?? UNKNOWN_JOB;
      this.#options.emit('job:failed', {
        ...outcome,
        kind,
        queue,
        attempt,
        error: input?.error ?? '',
        retryDelayMs: input?.retryDelayMs ?? 0,
      });
      if (outcome.status === 'SCHEDULED') this.#options.onScheduled(input?.retryDelayMs ?? 0);

      if (outcome.status === 'FAILED') {
        this.#options.logger.warn(
          { jobId: outcome.id, kind, queue, attempt, version: outcome.version, error: input?.error },
          'job failed for good',
        );
      }
    }
    // Dependents that run after a failure are runnable now (see the completions above).
    if (written.some((outcome) => outcome.status === 'FAILED' && outcome.hasDependents === true))
      this.#options.onRunnable();
    this.#reportLost('fail', inputs, written, labels, isolated);
  }

  async #writeReleases(
    inputs: readonly JobLease[],
    labels: LabelsById,
    isolated: ReadonlySet<number>,
  ): Promise<void> {
    const written = await this.#options.store.release(inputs);
    for (const lease of written) {
      const { kind, queue, attempt } = labels.get(lease.id) ?? UNKNOWN_JOB;
      this.#options.emit('job:released', { id: lease.id, version: lease.version, kind, queue, attempt });
    }
    // A job this instance released (its thread ended under it, or before it started) is due at once.
    if (written.length > 0) this.#options.onRunnable();
    this.#reportLost('release', inputs, written, labels, isolated);
  }

  async #writeSuspends(
    inputs: readonly SuspendInput[],
    labels: LabelsById,
    isolated: ReadonlySet<number>,
  ): Promise<void> {
    const written = await writeSuspends(inputs, labels, this.#options);
    this.#reportLost('suspend', inputs, written, labels, isolated);
  }

  #reportLost(
    type: Outcome['type'],
    sent: readonly JobLease[],
    written: readonly JobLease[],
    labels: LabelsById,
    isolated: ReadonlySet<number>,
  ): void {
    if (written.length === sent.length) return;
    const recorded = new Set(written.map((lease) => lease.id));
    for (const { id, version } of sent) {
      if (recorded.has(id)) continue;
      if (isolated.has(id)) {
        this.#options.emit('job:outcome-refused', { id, version, outcome: type });
        continue;
      }
      const { kind, queue, attempt } = labels.get(id) ?? UNKNOWN_JOB;
      this.#options.logger.warn(
        { jobId: id, kind, queue, attempt, version, outcome: type },
        'lease lost: outcome discarded',
      );
      this.#options.emit('job:lease-lost', { id, version });
    }
  }
}
