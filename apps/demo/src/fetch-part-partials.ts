import type { NudgeClient } from '@nudge/client';
import { PART_KIND } from './job-kinds.js';
import type { DelayPartial } from './delay-partial.js';
import { parseDelayPartial } from './parse-delay-partial.js';

/**
 * Reads the partials of finished `flightDelayPart` jobs through the nudge HTTP API
 * (`GET /jobs/:id`, all at once): the merge job's inputs. Going through the API rather than the
 * database keeps database credentials out of job payloads and the merge independent of the
 * jobs table's layout.
 *
 * @throws Error when a job is of another kind, has not succeeded, or its result is not a partial
 * @throws NudgeUnreachableError when the server cannot be reached; NudgeApiError `JOB_NOT_FOUND`
 */
export async function fetchPartPartials(
  client: NudgeClient,
  jobIds: readonly number[],
): Promise<DelayPartial[]> {
  const views = await Promise.all(jobIds.map((id) => client.get(id)));
  return views.map((view) => {
    if (view.kind !== PART_KIND) throw new Error(`job ${view.id} is a ${view.kind} job, not ${PART_KIND}`);
    if (view.status !== 'SUCCEEDED') {
      throw new Error(`part job ${view.id} is ${view.status}: merge only once every part has succeeded`);
    }
    return parseDelayPartial(view.result, `part job ${view.id}`);
  });
}
