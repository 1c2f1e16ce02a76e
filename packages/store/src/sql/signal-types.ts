import type { JsonValue } from '@nudge/core';

// The input and the stored form of a signal (see `Store.sendSignal`), beside the SQL that sends
// it; `step-types.ts` re-exports them with the rest of the durable steps' types.

/** A signal to send (`Store.sendSignal`). */
export interface SignalInput {
  readonly jobId: number;
  /** 1 to 200 characters: what `ctx.waitForSignal(name)` waits for. */
  readonly name: string;
  /** The payload as JSON text; `null` or omitted stores JSON `null`. */
  readonly payloadJson?: string | null;
  /** The sender's id for this signal (1 to 200 characters): a repeat with it returns the first. */
  readonly signalId?: string;
}

/** A stored signal. */
export interface JobSignal {
  readonly id: number;
  readonly jobId: number;
  readonly name: string;
  readonly payload: JsonValue;
  readonly signalId: string | null;
  readonly createdAt: Date;
}

/** What `Store.sendSignal` did: `created` false when `signalId` named a signal already sent. */
export interface SentSignal {
  readonly signal: JobSignal;
  readonly created: boolean;
}
