import { NudgeError } from '@nudge/core';
import type { BatchProblem } from './error-body.js';

/** Problems quoted in the message; `errors` in the body lists them all. */
const QUOTED = 5;

/**
 * `INVALID_BATCH`: some jobs of a `POST /jobs/batch` are invalid. `problems` lists every one of
 * them by index (the error body's `errors`); the message quotes the first few.
 */
export class BatchRejectedError extends NudgeError {
  readonly problems: readonly BatchProblem[];

  constructor(problems: readonly BatchProblem[], size: number) {
    // A message that names a field by its JSON Pointer gets the job's pointer in front of it.
    const quoted = problems
      .slice(0, QUOTED)
      .map((p) =>
        p.message.startsWith('/') ? `/jobs/${p.index}${p.message}` : `/jobs/${p.index}: ${p.message}`,
      );
    const more = problems.length > QUOTED ? `; … (see errors)` : '';
    super(
      'INVALID_BATCH',
      `${problems.length} of ${size} jobs are invalid, so none was written: ${quoted.join('; ')}${more}`,
    );
    this.problems = problems;
  }
}
