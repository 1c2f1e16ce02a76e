import type { StepWrite } from './durable-steps.js';
import { monotonicMs } from './monotonic-ms.js';
import type {
  FromThread,
  LeaseCheckMessage,
  LeaseFresh,
  StepMessage,
  StepWrittenMessage,
} from './thread-messages.js';

/** An attempt as its requests to the engine see it. */
export interface RequestingAttempt {
  readonly id: number;
  readonly version: number;
  /** Requests sent so far, to number the next one. */
  requests: number;
  /** Until when its lease counts as fresh (see `LeaseFresh`); each answer that found it held moves it. */
  freshUntil: LeaseFresh;
}

/**
 * What a thread's attempts ask the engine while they run: step writes (`ctx.step`, a wait that
 * timed out) and lease checks (a step about to start under a lease that is no longer fresh).
 * Each request is numbered `id:version:n`, unique among all threads, and answered with a
 * `StepWrittenMessage` of the same request.
 */
export class StepRequests {
  readonly #send: (message: FromThread) => void;
  readonly #waiting = new Map<
    string,
    { attempt: RequestingAttempt; resolve: (held: boolean) => void; reject: (error: Error) => void }
  >();

  constructor(send: (message: FromThread) => void) {
    this.#send = send;
  }

  /** Writes a step row of `attempt`; resolves `false` when its lease was lost. */
  write(attempt: RequestingAttempt, step: StepWrite): Promise<boolean> {
    return this.#ask(attempt, (request) => ({
      type: 'step',
      request,
      write: { ...step, id: attempt.id, version: attempt.version },
    }));
  }

  /**
   * `undefined` while the lease of `attempt` is fresh; else asks the engine to confirm it and
   * resolves whether it holds.
   */
  confirmLease(attempt: RequestingAttempt): Promise<boolean> | undefined {
    if (monotonicMs() <= attempt.freshUntil) return undefined;
    return this.#ask(attempt, (request) => ({
      type: 'lease-check',
      request,
      id: attempt.id,
      version: attempt.version,
    }));
  }

  /** The engine answered a request of this thread (one of another Piscina worker is ignored). */
  answered(message: StepWrittenMessage): void {
    const waiter = this.#waiting.get(message.request);
    if (!waiter) return;
    this.#waiting.delete(message.request);
    if (message.freshUntil !== undefined) waiter.attempt.freshUntil = message.freshUntil;
    if (message.error === undefined) waiter.resolve(message.written);
    else waiter.reject(new Error(`the step could not be recorded: ${message.error}`));
  }

  #ask(
    attempt: RequestingAttempt,
    message: (request: string) => StepMessage | LeaseCheckMessage,
  ): Promise<boolean> {
    attempt.requests += 1;
    const request = `${attempt.id}:${attempt.version}:${attempt.requests}`;
    return new Promise((resolve, reject) => {
      this.#waiting.set(request, { attempt, resolve, reject });
      this.#send(message(request));
    });
  }
}
