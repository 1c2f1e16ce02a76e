import type { JobLease, Store } from '@nudge/store';
import type { EmitEngineEvent } from './engine-events.js';
import { confirmLeases, heartbeatIntervalMs, leaseKey, outlivedHeartbeat } from './lease-confirmation.js';
import { monotonicMs } from './threads/monotonic-ms.js';
import type { LeaseCheckMessage, StepMessage, StepWrittenMessage } from './threads/thread-messages.js';

/** What a {@link StepRecorder} works with. */
export interface StepRecorderParts {
  readonly store: Store;
  readonly emit: EmitEngineEvent;
  /** Lease length, in ms. */
  readonly leaseMs: number;
  /** A running attempt's lease is gone: abort it (its next step does not start). */
  readonly onLost: (lease: JobLease) => void;
}

/**
 * Writes the step rows running attempts ask for (`ctx.step`) and answers their threads. Each
 * write is its own statement, fenced by the attempt's lease in the store; an attempt whose lease
 * is lost gets `written: false` (its step throws `LEASE_LOST`), and one whose write failed gets
 * the error (its step throws, failing the attempt). A write answered later than a heartbeat
 * interval confirms the lease before the answer: if this process was stopped meanwhile, another
 * attempt may have taken the job over, and the attempt is aborted before its next step starts.
 * A thread whose attempt's lease is no longer fresh asks for the same confirmation before a step
 * starts (a {@link LeaseCheckMessage}). Every answer that found the lease held says until when
 * it counts as fresh: a heartbeat interval from now.
 */
export class StepRecorder {
  readonly #parts: StepRecorderParts;

  constructor(parts: StepRecorderParts) {
    this.#parts = parts;
  }

  /** Writes `message`'s step, or confirms its lease, and sends the answer with `reply`. */
  record(message: StepMessage | LeaseCheckMessage, reply: (answer: StepWrittenMessage) => void): void {
    if (message.type === 'lease-check') {
      this.#confirm(message, reply);
      return;
    }
    const { request, write } = message;
    const sentAt = performance.now();
    const failed = (error: unknown) =>
      reply({
        type: 'step-written',
        request,
        written: false,
        error: error instanceof Error ? error.message : String(error),
      });
    this.#parts.store
      .recordStep(write)
      .then(async (written) => {
        this.#parts.emit('step:recorded', { write, written });
        if (written && outlivedHeartbeat(performance.now() - sentAt, this.#parts.leaseMs)) {
          const lease = { id: write.id, version: write.version };
          const held = await confirmLeases(this.#parts.store, [lease], this.#parts.leaseMs);
          // The abort reaches the thread before the answer: both travel its one channel, in order.
          if (!held.has(leaseKey(lease))) this.#parts.onLost(lease);
        }
        reply({ type: 'step-written', request, written, ...this.#fresh(written) });
      }, failed)
      .catch(failed);
  }

  /** Confirms the lease a thread asks about; one not held is lost (its attempt aborted first). */
  #confirm(message: LeaseCheckMessage, reply: (answer: StepWrittenMessage) => void): void {
    const { request, id, version } = message;
    const lease = { id, version };
    confirmLeases(this.#parts.store, [lease], this.#parts.leaseMs).then(
      (held) => {
        const written = held.has(leaseKey(lease));
        if (!written) this.#parts.onLost(lease);
        reply({ type: 'step-written', request, written, ...this.#fresh(written) });
      },
      (error: unknown) =>
        reply({
          type: 'step-written',
          request,
          written: false,
          error: error instanceof Error ? error.message : String(error),
        }),
    );
  }

  #fresh(held: boolean): { freshUntil?: number } {
    return held ? { freshUntil: monotonicMs() + heartbeatIntervalMs(this.#parts.leaseMs) } : {};
  }
}
