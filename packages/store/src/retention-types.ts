import type { TerminalStatus } from '@nudge/core';

/** Input of {@link Store.pruneFinished}. */
export interface PruneInput {
  readonly status: TerminalStatus;
  readonly kind: string;
  /** Deletes jobs that finished more than this long ago (database clock), in ms; at least 0. */
  readonly olderThanMs: number;
  /** Most rows deleted by the call (one short transaction). */
  readonly limit: number;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/** A status and kind that finished jobs have; see {@link Store.finishedKinds}. */
export interface FinishedKind {
  readonly status: TerminalStatus;
  readonly kind: string;
}
