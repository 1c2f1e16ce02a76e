import type { AttemptError } from '@nudge/core';

/** An element of the `errors` column as stored (JSON: the time is text). */
export interface StoredAttemptError {
  attempt: number;
  at: string;
  error: string;
  instance: string | null;
}

/** Reads a stored attempt error back. */
export function toAttemptError(stored: StoredAttemptError): AttemptError {
  return { attempt: stored.attempt, at: new Date(stored.at), error: stored.error, instance: stored.instance };
}
