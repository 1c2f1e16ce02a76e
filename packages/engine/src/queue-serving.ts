import { DEFAULT_QUEUE, isQueueName } from '@nudge/core';

/** A queue an instance serves, with an optional cap on how many of its jobs it runs at once. */
export interface ServedQueue {
  /** The queue's name, or `'*'` for every queue not listed. */
  readonly name: string;
  /** Most jobs of this queue this instance runs at once (whole number ≥ 1); none: no cap. */
  readonly cap?: number;
}

/** The queues an instance serves, resolved: the open ones, and the capped ones with their caps. */
export interface QueueServing {
  /** Every queue not capped is served (a `'*'` entry). */
  readonly everyQueue: boolean;
  /** Named queues served without a cap (empty when `everyQueue`). */
  readonly open: readonly string[];
  /** Capped queues and their caps. */
  readonly capped: ReadonlyMap<string, number>;
}

/** What an instance serves when nothing is configured: every queue, none capped. */
export const EVERY_QUEUE: readonly ServedQueue[] = [{ name: '*' }];

/**
 * Parses a queue list such as `default,emails:4,reports:2` (the text form of the engine's `queues`
 * option, which the server reads from `NUDGE_QUEUES`): names separated by commas, each with an
 * optional `:cap`; `*` serves every queue not listed.
 * @throws RangeError naming the entry at fault (an empty or invalid name, a cap that is not a
 *   whole number ≥ 1, a repeated name, or a cap on `*`)
 */
export function parseQueueList(text: string): ServedQueue[] {
  const queues = text.split(',').map((entry): ServedQueue => {
    const trimmed = entry.trim();
    const colon = trimmed.indexOf(':');
    if (colon === -1) return { name: trimmed };
    const capText = trimmed.slice(colon + 1);
    return { name: trimmed.slice(0, colon), cap: /^\d+$/.test(capText) ? Number(capText) : Number.NaN };
  });
  resolveQueueServing(queues);
  return queues;
}

/**
 * Checks a list of served queues and resolves it.
 * @throws RangeError naming the entry at fault
 */
export function resolveQueueServing(queues: readonly ServedQueue[]): QueueServing {
  if (queues.length === 0)
    throw new RangeError(`queues must name at least one queue (or '*' for every queue)`);
  const seen = new Set<string>();
  const open: string[] = [];
  const capped = new Map<string, number>();
  let everyQueue = false;
  for (const { name, cap } of queues) {
    if (name !== '*' && !isQueueName(name)) {
      throw new RangeError(
        `queues: "${name}" is not a queue name (1 to 100 letters, digits, '_', '.' or '-'; or '*')`,
      );
    }
    if (seen.has(name)) throw new RangeError(`queues: "${name}" is listed twice`);
    seen.add(name);
    if (cap !== undefined && (!Number.isInteger(cap) || cap < 1 || cap > 100_000)) {
      throw new RangeError(
        `queues: the cap of "${name}" must be a whole number from 1 to 100000 (got ${String(cap)})`,
      );
    }
    if (name === '*') {
      if (cap !== undefined) throw new RangeError(`queues: '*' takes no cap; cap named queues instead`);
      everyQueue = true;
    } else if (cap === undefined) {
      open.push(name);
    } else {
      capped.set(name, cap);
    }
  }
  return { everyQueue, open: everyQueue ? [] : open, capped };
}

/** Whether `queue` is served without a cap. */
export function servesOpen(serving: QueueServing, queue: string = DEFAULT_QUEUE): boolean {
  if (serving.capped.has(queue)) return false;
  return serving.everyQueue || serving.open.includes(queue);
}
