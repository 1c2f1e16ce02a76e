import type { JsonValue } from '@nudge/core';

/**
 * A signal as `POST /jobs/:id/signals` answers it (`client.signal`), with whether that request
 * stored it: `created: false` when its `signalId` named a signal already sent to the job.
 */
export interface SentSignalView {
  /** The signal's id, ascending in the order signals were sent. */
  readonly id: number;
  readonly jobId: number;
  readonly name: string;
  /** The payload sent; `null` when none was. */
  readonly payload: JsonValue;
  /** The sender's id, `null` when none was given. */
  readonly signalId: string | null;
  /** When it was stored (database clock), ISO-8601 UTC. */
  readonly createdAt: string;
  readonly created: boolean;
}
