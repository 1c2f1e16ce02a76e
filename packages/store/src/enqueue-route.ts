import { takesSteps, type EnqueueRow } from './sql/index.js';
import type { SelfClaimInput } from './enqueue-types.js';

/**
 * How a store writes one job, decided here once for both dialects and every caller (the engine's
 * self-claim, `POST /jobs`, handlers' producers):
 *
 * - `steps`: the job has dependencies, or is throttled or debounced: the enqueue plan's statements
 *   in one transaction (`enqueuePlan`), never claimed by its producer (it is not due, or its
 *   dedupe steps decide whether it is new);
 * - `claimed`: a claim was offered and the job may start now (no delay): the one statement that
 *   inserts it already claimed when it is due and nothing of its kinds comes first, else as usual;
 * - `plain`: one INSERT (and a read-back when its idempotency key existed), no transaction needed.
 */
export type EnqueueRoute =
  | { readonly path: 'steps' }
  | { readonly path: 'claimed'; readonly claim: SelfClaimInput }
  | { readonly path: 'plain' };

/**
 * The {@link EnqueueRoute} of `input`, given the claim its caller offers (a free slot of the
 * engine's), or none.
 */
export function enqueueRoute(input: EnqueueRow, claim: SelfClaimInput | undefined): EnqueueRoute {
  if (takesSteps(input)) return { path: 'steps' };
  if (claim !== undefined && !((input.delayMs ?? 0) > 0)) return { path: 'claimed', claim };
  return { path: 'plain' };
}
