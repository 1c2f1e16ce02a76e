import { NudgeError } from '@nudge/core';

/**
 * The `UNKNOWN_KIND` error for a job whose kind no handler is exported for; the message names
 * the kind and the kinds that are known, so the fix (a typo, or a missing export) is evident.
 */
export function unknownKindError(kind: string, known: readonly string[]): NudgeError {
  const list = known.length > 0 ? `known kinds: ${known.join(', ')}` : 'no kind is known';
  return new NudgeError(
    'UNKNOWN_KIND',
    `unknown job kind ${JSON.stringify(kind)}: the handler module exports no such handler (${list})`,
  );
}
