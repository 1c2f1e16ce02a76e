import { Cron } from 'croner';
import { jobInputProblem, NudgeError } from '@nudge/core';

/** What to do with ticks that came while no instance was running (see {@link CronSchedule}). */
export type MissedTicks = 'latest' | 'skip';

/**
 * A recurring job, declared in the handler module (`export const schedules = [...]`) or in the
 * engine's `schedules` option (which the server fills from `NUDGE_SCHEDULES`): at each tick of
 * `cron` (read in `timezone`) one job of `kind` is enqueued, once across every instance.
 *
 * @example `{ name: 'nightly-report', cron: '0 3 * * *', timezone: 'Europe/Paris', kind: 'report' }`
 */
export interface CronSchedule {
  /** Unique and stable (1 to 100 letters, digits, `_ . : -`): a tick's idempotency key is `name@tick`. */
  readonly name: string;
  /** Five fields (minute precision) or six (a leading seconds field), as croner reads them. */
  readonly cron: string;
  /** IANA time zone the expression is read in. @defaultValue `'UTC'` */
  readonly timezone?: string;
  readonly kind: string;
  /** @defaultValue `{}` */
  readonly payload?: unknown;
  /** @defaultValue the kind's declared queue, else `default` */
  readonly queue?: string;
  /** @defaultValue 0 */
  readonly priority?: number;
  /** @defaultValue the kind's declared `maxAttempts`, else 5 */
  readonly maxAttempts?: number;
  /**
   * Ticks found more than {@link MISSED_AFTER_MS} after their time were missed (every instance was
   * down): `latest` enqueues the latest missed tick once, `skip` none. Earlier missed ticks are
   * always skipped. @defaultValue `'latest'`
   */
  readonly missed?: MissedTicks;
}

/** A tick found this long after its time, in ms, was missed rather than merely late. */
export const MISSED_AFTER_MS = 60_000;

/** A checked schedule with its expression compiled. */
export interface ResolvedSchedule extends CronSchedule {
  readonly timezone: string;
  readonly missed: MissedTicks;
  /** The next tick strictly after `after`, or `null` when the expression has no more. */
  nextTick(after: Date): Date | null;
}

const NAME = /^[A-Za-z0-9_.:-]{1,100}$/;

/**
 * Checks schedule declarations from `source` (such as `the handler module`, or `schedules` for the engine's option)
 * and compiles their expressions.
 * @param kinds - the kinds handled here; a schedule of another kind is refused (omit to skip the check)
 * @throws RangeError naming the schedule and the field at fault: not an array, a missing or bad
 *   name, a repeated name, a bad expression or time zone, an unknown kind or a bad missed policy
 * @throws NudgeError naming the schedule, with the code and message of the job contract of
 *   `@nudge/core` for a bad kind, payload, queue, priority or maxAttempts (`INVALID_REQUEST`,
 *   `PAYLOAD_UNSTORABLE`, `PAYLOAD_TOO_DEEP`)
 */
export function resolveSchedules(
  declared: unknown,
  source: string,
  kinds?: ReadonlySet<string>,
): ResolvedSchedule[] {
  if (!Array.isArray(declared)) throw new RangeError(`${source}: schedules must be an array of schedules`);
  const seen = new Set<string>();
  return declared.map((value: unknown, index) => {
    const where = `${source}: schedule ${index}`;
    if (value === null || typeof value !== 'object') throw new RangeError(`${where} must be an object`);
    const s = value as Record<string, unknown>;
    if (typeof s.name !== 'string' || !NAME.test(s.name))
      throw new RangeError(`${where}: name must be 1 to 100 letters, digits, '_', '.', ':' or '-'`);
    const at = `${source}: schedule "${s.name}"`;
    if (seen.has(s.name)) throw new RangeError(`${at} is declared twice`);
    seen.add(s.name);
    // The job fields follow the job contract of `@nudge/core`, as every enqueue path does.
    const job = {
      kind: s.kind,
      payload: s.payload,
      queue: s.queue,
      priority: s.priority,
      maxAttempts: s.maxAttempts,
    };
    const refused = jobInputProblem(
      Object.fromEntries(Object.entries(job).filter(([, value]) => value !== undefined)),
    );
    if (refused) throw new NudgeError(refused.code, `${at}: ${refused.message}`);
    const kind = s.kind as string;
    if (kinds && !kinds.has(kind))
      throw new RangeError(
        `${at}: kind "${kind}" is not handled here (kinds: ${[...kinds].sort().join(', ')})`,
      );
    const timezone = s.timezone ?? 'UTC';
    if (typeof timezone !== 'string')
      throw new RangeError(`${at}: timezone must be an IANA name such as Europe/Paris`);
    if (typeof s.cron !== 'string')
      throw new RangeError(`${at}: cron must be a cron expression such as "0 3 * * *"`);
    let cron: Cron;
    try {
      cron = new Cron(s.cron, { timezone, paused: true, mode: '5-or-6-parts' });
      cron.nextRun(new Date());
    } catch (error) {
      throw new RangeError(`${at}: cron "${s.cron}" in ${timezone} is invalid: ${(error as Error).message}`);
    }
    const missed = s.missed ?? 'latest';
    if (missed !== 'latest' && missed !== 'skip')
      throw new RangeError(`${at}: missed must be "latest" or "skip"`);
    return {
      name: s.name,
      cron: s.cron,
      timezone,
      kind,
      missed,
      ...(s.payload === undefined ? {} : { payload: s.payload }),
      ...(s.queue === undefined ? {} : { queue: s.queue as string }),
      ...(s.priority === undefined ? {} : { priority: s.priority as number }),
      ...(s.maxAttempts === undefined ? {} : { maxAttempts: s.maxAttempts as number }),
      nextTick: (after: Date) => cron.nextRun(after),
    };
  });
}

/** The ticks of `schedule` after `lastTick` up to `now`: how many, and the latest. */
export interface DueTicks {
  readonly count: number;
  readonly latest: Date;
}

/** Most ticks counted one by one; past it the latest is still found, the count is a floor. */
const MAX_COUNTED_TICKS = 10_000;

/**
 * The ticks of `schedule` in `(lastTick, now]`, or `undefined` when none is due. Counting stops
 * after 10,000 ticks (a per-second schedule down for hours); the latest tick is then found by
 * stepping from a tick close to `now`.
 */
export function dueTicks(schedule: ResolvedSchedule, lastTick: Date, now: Date): DueTicks | undefined {
  let latest = schedule.nextTick(lastTick);
  if (!latest || latest > now) return undefined;
  let count = 1;
  for (let next = schedule.nextTick(latest); next && next <= now; next = schedule.nextTick(latest)) {
    latest = next;
    count += 1;
    if (count >= MAX_COUNTED_TICKS) {
      // Jump close to now: the ticks of the last day hold the latest one for any expression
      // that ticks at least daily; others are few, so the loop above rarely gets here.
      const from = new Date(Math.max(latest.getTime(), now.getTime() - 86_400_000));
      for (let step = schedule.nextTick(from); step && step <= now; step = schedule.nextTick(step))
        latest = step;
      break;
    }
  }
  return { count, latest };
}
