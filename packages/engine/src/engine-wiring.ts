import { EXECUTION_CLASSES, retryDelayMs, type ExecutionClass } from '@nudge/core';
import type { EnqueuedJob, EnqueueInput } from '@nudge/store';
import { hostname } from 'node:os';
import { Claimer } from './claimer.js';
import { CronScheduler } from './cron-scheduler.js';
import type { ResolvedSchedule } from './cron-schedule.js';
import type { EmitEngineEvent, EngineEvents } from './engine-events.js';
import type { ResolvedEngineOptions } from './engine-options.js';
import { Executor } from './executor.js';
import type { KindInfo } from './handlers/handler.js';
import { KindRegistry } from './kind-registry.js';
import { instanceLiveWithinMs, LeaseKeeper } from './lease-keeper.js';
import { NewJobsWaker } from './new-jobs-waker.js';
import { OutcomeWriter } from './outcome-writer.js';
import { ProgressWriter } from './progress-writer.js';
import { Pruner } from './pruner.js';
import { Rescuer } from './rescuer.js';
import { SafetyPoll } from './safety-poll.js';
import { Scheduler } from './scheduler.js';
import type { ExecutionPool } from './threads/execution-pool.js';
import { UnhandledKindsFailer } from './unhandled-kinds.js';

/** What the services call back on the engine that owns them. */
export interface EngineHooks {
  readonly emit: EmitEngineEvent;
  /** Subscribes to one of the engine's own events. */
  readonly on: <K extends keyof EngineEvents>(name: K, listener: (value: EngineEvents[K]) => void) => void;
  /**
   * Asks for a claim pass (coalesced), as a sign of work (the safety poll shortens); a no-op
   * before start and after stop.
   */
  readonly requestClaim: () => void;
  /** Enqueues through the engine (cron ticks take the self-claiming path too). */
  readonly enqueue: (input: EnqueueInput) => Promise<EnqueuedJob>;
}

/** The services of one engine, wired to each other and to its {@link EngineHooks}. */
export interface EngineServices {
  readonly registry: KindRegistry;
  /** The execution class of each kind. */
  readonly kinds: ReadonlyMap<string, ExecutionClass>;
  /** The kinds of each execution class (every class present, maybe with none). */
  readonly kindsByClass: ReadonlyMap<ExecutionClass, readonly string[]>;
  readonly writer: OutcomeWriter;
  readonly progress: ProgressWriter;
  readonly executor: Executor;
  readonly claimer: Claimer;
  readonly leaseKeeper: LeaseKeeper;
  readonly rescuer: Rescuer;
  readonly pruner: Pruner;
  readonly cron: CronScheduler;
  readonly scheduler: Scheduler;
  readonly unhandled: UnhandledKindsFailer;
  readonly waker: NewJobsWaker;
  readonly safetyPoll: SafetyPoll;
}

/**
 * Builds one engine's services and wires them: who tells whom that slots freed, that a job is
 * due, that leases were lost, that rows were written. The `Engine` keeps the facade (start,
 * enqueue, commands, stop); this is its composition root.
 */
export function wireEngine(
  options: ResolvedEngineOptions,
  kindInfos: readonly KindInfo[],
  pools: Map<ExecutionClass, ExecutionPool>,
  schedules: readonly ResolvedSchedule[],
  hooks: EngineHooks,
): EngineServices {
  const { store, logger } = options;
  const { emit } = hooks;
  const registry = new KindRegistry(kindInfos, options);
  const kinds = new Map(kindInfos.map((k) => [k.kind, k.execution]));
  const kindsByClass = new Map(
    EXECUTION_CLASSES.map((c) => [c, kindInfos.filter((k) => k.execution === c).map((k) => k.kind)]),
  );
  const writer = new OutcomeWriter({
    store,
    logger,
    emit,
    onWritten: (leases, queueOf) => {
      executor.written(leases);
      claimer.outcomesWritten(leases, queueOf);
    },
  });
  const progress = new ProgressWriter({ store, logger, emit, intervalMs: options.progressIntervalMs });
  hooks.on('job:failed', ({ status, retryDelayMs: delay }) => {
    if (status === 'SCHEDULED') scheduler.wakeIn(delay);
  });
  // A job this instance released (its thread ended under it, or before it started) is due at
  // once: claim it again. While shutting down, the claimer is stopped and this does nothing.
  hooks.on('job:released', () => hooks.requestClaim());
  hooks.on('job:followed-up', ({ due, nextDelayMs }) => {
    if (due) hooks.requestClaim();
    if (nextDelayMs !== null) scheduler.wakeIn(nextDelayMs);
  });
  const executor = new Executor({
    options,
    pools,
    kinds: kinds,
    writer: writer,
    progress: progress,
    emit,
    outcomes: {
      maxOldGenerationSizeMb: options.maxOldGenerationSizeMb,
      timeoutMs: (kind) => registry.timeoutMs(kind),
      retryDelayMs: (kind, attempt) => retryDelayMs(attempt, registry.backoffFor(kind)),
    },
    onSlotsFreed: (execution) => claimer.slotsFreed(execution),
    onQueuesFreed: (queues) => claimer.queuesFreed(queues),
  });
  const claimer = new Claimer({
    store,
    logger,
    emit,
    workerId: options.workerId,
    leaseMs: options.leaseMs,
    claimCooldownMs: options.claimCooldownMs,
    maxClaimBatch: options.maxClaimBatch,
    kinds: kindsByClass,
    free: (execution) => executor.free(execution),
    reserve: (execution, count) => executor.reserve(execution, count),
    unreserve: (execution, count) => executor.unreserve(execution, count),
    serving: options.queueServing,
    reserveQueue: (queue, cap, count) => executor.reserveQueue(queue, cap, count),
    unreserveQueue: (queue, count) => executor.unreserveQueue(queue, count),
    start: (jobs) => executor.start(jobs),
    classOf: (kind) => kinds.get(kind),
  });
  const leaseKeeper = new LeaseKeeper({
    store,
    logger,
    emit,
    leaseMs: options.leaseMs,
    instance: {
      id: options.workerId,
      host: hostname(),
      pid: process.pid,
      kinds: [...kinds.keys()].sort(),
      version: options.version,
      queues: options.queues,
      slots: Object.fromEntries(
        [...kindsByClass]
          .filter(([, classKinds]) => classKinds.length > 0)
          .map(([execution]) => [execution, executor.capacity(execution)]),
      ),
    },
    leases: () => executor.leases(),
    onLost: (leases, cancelled) => executor.loseLeases(leases, cancelled),
  });
  const rescuer = new Rescuer({
    store,
    logger,
    emit,
    sweepIntervalMs: options.sweepIntervalMs,
    leaseMs: options.leaseMs,
    retryDelayMs: ({ kind, attempts }) => retryDelayMs(attempts, registry.backoffFor(kind)),
    onRequeued: () => {
      scheduler.wakeIn(0);
      hooks.requestClaim();
    },
    ownLeasesRenewed: () => leaseKeeper.renewing,
  });
  const pruner = new Pruner({
    store,
    logger,
    emit,
    policy: options.retention,
    pruneIntervalMs: options.pruneIntervalMs,
  });
  const cron = new CronScheduler({
    store,
    logger,
    emit,
    schedules,
    enqueue: (input) => hooks.enqueue(input),
  });
  const scheduler = new Scheduler({
    store,
    logger,
    emit,
    onPromoted: () => hooks.requestClaim(),
  });
  // Every promotion looked at the leases too: the sweep sleeps until the earliest expires.
  hooks.on('schedule:done', ({ nextLeaseExpiryInMs }) => rescuer.observe(nextLeaseExpiryInMs));
  const safetyPoll = new SafetyPoll({
    shortMs: options.pollIntervalMs,
    idleMaxMs: Math.max(options.idlePollMaxMs, options.pollIntervalMs),
    poll: async () => {
      // Promotes what came due, and says whether a claim may find anything: an idle poll is one
      // statement. Runnable rows this instance cannot take (a paused queue, another version's
      // kind) are no sign of work, so this claim does not shorten the back-off.
      if ((await scheduler.runOnce()).runnable) claimer.request();
    },
    onError: (error) => logger.error({ err: error }, 'safety poll failed; it polls again soon'),
  });
  // A claim held back by a limit is work waiting for room that another instance may free.
  for (const sign of ['listen:wake', 'claim:claimed', 'claim:error', 'claim:held-back'] as const)
    hooks.on(sign, () => safetyPoll.workSeen());
  hooks.on('listen:ready', () => safetyPoll.listening(true));
  hooks.on('listen:lost', () => safetyPoll.listening(false));
  const unhandled = new UnhandledKindsFailer({
    store,
    logger,
    emit,
    graceMs: options.unhandledKindGraceMs,
    instanceTtlMs: instanceLiveWithinMs(options.leaseMs),
    registered: () => leaseKeeper.registered,
  });
  const waker = new NewJobsWaker({
    store,
    listen: options.listen,
    emit,
    requestClaim: () => hooks.requestClaim(),
  });
  return {
    registry,
    kinds,
    kindsByClass,
    writer,
    progress,
    executor,
    claimer,
    leaseKeeper,
    rescuer,
    pruner,
    cron,
    scheduler,
    unhandled,
    waker,
    safetyPoll,
  };
}
