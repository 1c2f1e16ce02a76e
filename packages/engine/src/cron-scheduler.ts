import type { JsonValue, Logger } from '@nudge/core';
import type { EnqueuedJob, EnqueueInput, Store } from '@nudge/store';
import { dueTicks, MISSED_AFTER_MS, type ResolvedSchedule } from './cron-schedule.js';
import type { EmitEngineEvent } from './engine-events.js';
import type { CronRunResult, CronTick } from './service-results.js';

export type { CronRunResult, CronTick } from './service-results.js';

/** Wait before a failed check is tried again, in ms. */
export const CRON_CHECK_INTERVAL_MS = 1000;

/** Longest single sleep, in ms (an hour): the local clock is re-read against the database's. */
const MAX_SLEEP_MS = 3_600_000;

/** Options of a {@link CronScheduler}. */
export interface CronSchedulerOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  readonly schedules: readonly ResolvedSchedule[];
  /** Enqueues a tick's job (the engine's enqueue: the kind's defaults apply). */
  readonly enqueue: (input: EnqueueInput) => Promise<EnqueuedJob>;
  /** Wait before a failed check is tried again, in ms. @defaultValue {@link CRON_CHECK_INTERVAL_MS} */
  readonly checkIntervalMs?: number;
}

/**
 * Recurring jobs: it sleeps until the next tick of any schedule (as this instance knows the last
 * ones), then, for each schedule whose next tick is due by the database clock,
 * enqueues one job with the idempotency key `name@tick` (so any number of instances create one
 * job per tick) and moves the schedule's recorded last tick forward (so the tick is never
 * enqueued again, even after retention deleted its job). Ticks found over a minute late were
 * missed while no instance ran: the latest is enqueued once under `missed: 'latest'`.
 */
export class CronScheduler {
  readonly #options: CronSchedulerOptions;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  /** Last handled tick per schedule, as this instance knows it; `undefined` before registering. */
  #lastTicks: Map<string, Date> | undefined;

  constructor(options: CronSchedulerOptions) {
    this.#options = options;
  }

  /** The declared schedules. */
  get schedules(): readonly ResolvedSchedule[] {
    return this.#options.schedules;
  }

  readonly name = 'cron';

  start(): void {
    if (this.#options.schedules.length === 0) return;
    this.#started = true;
    this.#arm(0);
  }

  stop(): void {
    this.#started = false;
    clearTimeout(this.#timer);
  }

  #arm(delayMs: number): void {
    if (!this.#started) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#check().then(
        (sleepMs) => this.#arm(sleepMs),
        (error: unknown) => {
          this.#options.logger.error({ err: error }, 'enqueueing recurring jobs failed');
          this.#arm(this.#options.checkIntervalMs ?? CRON_CHECK_INTERVAL_MS);
        },
      );
    }, delayMs);
  }

  /** One pass; @returns how long to sleep until the next tick, in ms. */
  async #check(): Promise<number> {
    const at = await this.#options.store.now();
    const readAt = performance.now();
    await this.runOnce(at);
    let next = Number.POSITIVE_INFINITY;
    for (const schedule of this.#options.schedules) {
      const tick = schedule.nextTick(this.#lastTicks?.get(schedule.name) ?? at);
      if (tick) next = Math.min(next, tick.getTime());
    }
    // A few ms late rather than early: the tick must be due by the database clock when we look.
    const elapsed = performance.now() - readAt;
    return Math.min(MAX_SLEEP_MS, Math.max(0, next - at.getTime() - elapsed + 5));
  }

  /** One pass at `now` (tests only; default: the database clock). */
  async runOnce(now?: Date): Promise<CronRunResult> {
    const { store, schedules } = this.#options;
    const at = now ?? (await store.now());
    const lastTicks = (this.#lastTicks ??= await this.#register(at));
    const ticks: CronTick[] = [];
    let skipped = 0;
    for (const schedule of schedules) {
      const last = lastTicks.get(schedule.name) ?? at;
      const due = dueTicks(schedule, last, at);
      if (!due) continue;
      const missed = at.getTime() - due.latest.getTime() > MISSED_AFTER_MS;
      const run = !missed || schedule.missed === 'latest';
      skipped += due.count - (run ? 1 : 0);
      if (run) ticks.push(await this.#enqueueTick(schedule, due.latest));
      await store.advanceSchedule({
        name: schedule.name,
        tickAt: due.latest,
        nextTickAt: schedule.nextTick(due.latest),
      });
      lastTicks.set(schedule.name, due.latest);
      if (missed) {
        this.#options.logger.warn(
          { schedule: schedule.name, missedTicks: due.count, latest: due.latest.toISOString() },
          run ? 'ran the latest missed tick of a schedule once' : 'skipped missed ticks of a schedule',
        );
      }
    }
    const result = { ticks, skipped };
    this.#options.emit('cron:done', result);
    return result;
  }

  async #register(now: Date): Promise<Map<string, Date>> {
    const { store, schedules } = this.#options;
    const rows = await store.registerSchedules(
      schedules.map(({ name, cron, timezone, kind }) => ({ name, cron, timezone, kind })),
      now,
    );
    for (const row of rows) {
      const schedule = schedules.find((s) => s.name === row.name);
      const nextTickAt = schedule?.nextTick(row.lastTickAt) ?? null;
      if (nextTickAt?.getTime() !== row.nextTickAt?.getTime())
        await store.advanceSchedule({ name: row.name, tickAt: row.lastTickAt, nextTickAt });
    }
    return new Map(rows.map((row) => [row.name, row.lastTickAt]));
  }

  async #enqueueTick(schedule: ResolvedSchedule, tickAt: Date): Promise<CronTick> {
    const job = await this.#options.enqueue({
      kind: schedule.kind,
      payload: (schedule.payload ?? {}) as JsonValue,
      idempotencyKey: `${schedule.name}@${tickAt.toISOString()}`,
      ...(schedule.queue === undefined ? {} : { queue: schedule.queue }),
      ...(schedule.priority === undefined ? {} : { priority: schedule.priority }),
      ...(schedule.maxAttempts === undefined ? {} : { maxAttempts: schedule.maxAttempts }),
    });
    return { schedule: schedule.name, tickAt, jobId: job.id, created: job.created };
  }
}
