import { EXECUTION_CLASSES, retryDelayMs, type ExecutionClass } from '@nudge/core';
import type { EnqueuedJob, EnqueueInput } from '@nudge/store';
import { hostname } from 'node:os';
import { AttemptSupervisor } from './attempt-supervisor.js';
import { StepRecorder } from './step-recorder.js';
import { Claimer } from './claimer.js';
import type { CommandParts } from './engine-commands.js';
import type { LoadedEngine } from './load-engine.js';
import type { SelfClaimParts } from './self-claim-enqueue.js';
import { CronScheduler } from './cron-scheduler.js';
import type { EmitEngineEvent } from './engine-events.js';
import { InstanceRegistry, instanceLiveWithinMs } from './instance-registry.js';
import { KindRegistry } from './kind-registry.js';
import { LeaseKeeper } from './lease-keeper.js';
import { NewJobsWaker } from './new-jobs-waker.js';
import { OutcomeWriter } from './outcome-writer.js';
import { ProgressWriter } from './progress-writer.js';
import { LogWriter } from './log-writer.js';
import { Promoter } from './promoter.js';
import { Pruner } from './pruner.js';
import { Rescuer } from './rescuer.js';
import { SafetyPoll } from './safety-poll.js';
import type { EngineService } from './service.js';
import { SlotLedger } from './slot-ledger.js';
import { UnhandledKindsFailer } from './unhandled-kinds.js';

/** What the services call back on the engine that owns them. */
export interface EngineHooks {
  readonly emit: EmitEngineEvent;
  /**
   * Asks for a claim pass (coalesced), as a sign of work (the safety poll shortens); a no-op
   * before start and after stop.
   */
  readonly requestClaim: () => void;
  /** Enqueues through the engine (cron ticks take the self-claiming path too). */
  readonly enqueue: (input: EnqueueInput) => Promise<EnqueuedJob>;
  /** Whether the engine runs jobs now (started, not stopping). */
  readonly running: () => boolean;
}

/** The parts of one engine, wired to each other through ports and to its {@link EngineHooks}. */
export interface EngineParts {
  readonly kindRegistry: KindRegistry;
  /** The execution class of each kind. */
  readonly kinds: ReadonlyMap<string, ExecutionClass>;
  /** The kinds of each execution class (every class present, maybe with none). */
  readonly kindsByClass: ReadonlyMap<ExecutionClass, readonly string[]>;
  readonly writer: OutcomeWriter;
  readonly progress: ProgressWriter;
  readonly logs: LogWriter;
  readonly ledger: SlotLedger;
  readonly supervisor: AttemptSupervisor;
  readonly claimer: Claimer;
  readonly leaseKeeper: LeaseKeeper;
  readonly instances: InstanceRegistry;
  readonly rescuer: Rescuer;
  readonly promoter: Promoter;
  readonly cron: CronScheduler;
  readonly pruner: Pruner;
  readonly unhandled: UnhandledKindsFailer;
  readonly waker: NewJobsWaker;
  readonly safetyPoll: SafetyPoll;
  /** Every background service, in start order (shutdown stops them in reverse). */
  readonly services: readonly EngineService[];
  /** What the self-claiming enqueue works with. */
  readonly selfClaim: SelfClaimParts;
  /** What the operator commands work with. */
  readonly commands: CommandParts;
}

/**
 * Builds one engine's parts and wires them through ports: who tells whom that slots freed, that
 * a job is due, that leases were lost, that rows were written. No part listens to the engine's
 * public events. The `Engine` keeps the facade (start, enqueue, commands, stop); this is its
 * composition root.
 */
export function wireEngine(loaded: LoadedEngine, hooks: EngineHooks): EngineParts {
  const { options, kinds: kindInfos, pools, schedules } = loaded;
  const { store, logger, leaseMs, workerId } = options;
  const { emit, requestClaim } = hooks;
  const kindRegistry = new KindRegistry(kindInfos, options);
  const kinds = new Map(kindInfos.map((k) => [k.kind, k.execution]));
  const kindsByClass = new Map(
    EXECUTION_CLASSES.map((c) => [c, kindInfos.filter((k) => k.execution === c).map((k) => k.kind)]),
  );
  const ledger = new SlotLedger(pools, (execution) => claimer.slotsFreed(execution));
  const writer = new OutcomeWriter({
    store,
    logger,
    emit,
    onWritten: (leases, queueOf) => {
      supervisor.written(leases);
      claimer.outcomesWritten(leases, queueOf);
    },
    // A job this instance released or followed up is due at once: claim it (while shutting
    // down, the claimer is stopped and this does nothing).
    onRunnable: requestClaim,
    onScheduled: (delayMs) => promoter.wakeIn(delayMs),
    beforeWrite: (leases, since) => logs.flushFor(leases, since),
  });
  const logs = new LogWriter({
    store,
    logger,
    emit,
    intervalMs: options.progressIntervalMs,
    caps: { linesPerJob: options.logLinesPerJob, bytesPerJob: options.logBytesPerJob },
    flushWaitMs: options.logFlushWaitMs,
  });
  const progress = new ProgressWriter({ store, logger, emit, intervalMs: options.progressIntervalMs });
  const supervisor = new AttemptSupervisor({
    options,
    pools,
    kinds,
    ledger,
    writer,
    progress,
    logs,
    steps: new StepRecorder({ store, emit, leaseMs, onLost: (lease) => supervisor.loseLeases([lease]) }),
    emit,
    outcomes: {
      maxOldGenerationSizeMb: options.maxOldGenerationSizeMb,
      timeoutMs: (kind) => kindRegistry.timeoutMs(kind),
      retryDelayMs: (kind, attempt) => retryDelayMs(attempt, kindRegistry.backoffFor(kind)),
    },
    onSlotsFreed: (execution) => claimer.slotsFreed(execution),
    onQueuesFreed: (queues) => claimer.queuesFreed(queues),
  });
  const claimer = new Claimer({
    store,
    logger,
    emit,
    workerId,
    leaseMs,
    claimCooldownMs: options.claimCooldownMs,
    maxClaimBatch: options.maxClaimBatch,
    kinds: kindsByClass,
    free: (execution) => ledger.free(execution),
    reserve: (execution, count) => ledger.reserve(execution, count),
    unreserve: (execution, count) => ledger.unreserve(execution, count),
    serving: options.queueServing,
    reserveQueue: (queue, cap, count) => ledger.reserveQueue(queue, cap, count),
    unreserveQueue: (queue, count) => ledger.unreserveQueue(queue, count),
    start: (jobs) => supervisor.start(jobs),
    classOf: (kind) => kinds.get(kind),
    // A claim held back by a limit is work waiting for room that another instance may free.
    onWorkSign: () => safetyPoll.workSeen(),
  });
  const instances = new InstanceRegistry({
    store,
    logger,
    leaseMs,
    instance: {
      id: workerId,
      host: hostname(),
      pid: process.pid,
      kinds: [...kinds.keys()].sort(),
      version: options.version,
      queues: options.queues,
      slots: Object.fromEntries(
        [...kindsByClass]
          .filter(([, classKinds]) => classKinds.length > 0)
          .map(([execution]) => [execution, ledger.capacity(execution)]),
      ),
    },
  });
  const leaseKeeper = new LeaseKeeper({
    store,
    logger,
    emit,
    leaseMs,
    leases: () => supervisor.leases(),
    onLost: (leases, cancelled) => supervisor.loseLeases(leases, cancelled),
  });
  const rescuer = new Rescuer({
    store,
    logger,
    emit,
    sweepIntervalMs: options.sweepIntervalMs,
    leaseMs,
    retryDelayMs: ({ kind, attempts }) => retryDelayMs(attempts, kindRegistry.backoffFor(kind)),
    onRequeued: () => {
      promoter.wakeIn(0);
      requestClaim();
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
  const cron = new CronScheduler({ store, logger, emit, schedules, enqueue: hooks.enqueue });
  const promoter = new Promoter({
    store,
    logger,
    emit,
    onPromoted: requestClaim,
    // Every promotion looked at the leases too: the sweep sleeps until the earliest expires.
    onLeaseExpiry: (inMs) => rescuer.observe(inMs),
  });
  const safetyPoll = new SafetyPoll({
    shortMs: options.pollIntervalMs,
    idleMaxMs: Math.max(options.idlePollMaxMs, options.pollIntervalMs),
    poll: async () => {
      // Promotes what came due, and says whether a claim may find anything: an idle poll is one
      // statement. Runnable rows this instance cannot take (a paused queue, another version's
      // kind) are no sign of work, so this claim does not shorten the back-off.
      if ((await promoter.runOnce()).runnable) claimer.request();
    },
    onError: (error) => logger.error({ err: error }, 'safety poll failed; it polls again soon'),
  });
  const unhandled = new UnhandledKindsFailer({
    store,
    logger,
    emit,
    graceMs: options.unhandledKindGraceMs,
    instanceTtlMs: instanceLiveWithinMs(leaseMs),
    registered: () => instances.registered,
  });
  const waker = new NewJobsWaker({
    store,
    listen: options.listen,
    emit,
    requestClaim,
    onListening: (healthy) => safetyPoll.listening(healthy),
  });
  loaded.attach(supervisor);
  const services = [
    instances,
    leaseKeeper,
    rescuer,
    pruner,
    cron,
    promoter,
    unhandled,
    claimer,
    waker,
    safetyPoll,
  ];
  return {
    kindRegistry,
    kinds,
    kindsByClass,
    writer,
    progress,
    logs,
    ledger,
    supervisor,
    claimer,
    leaseKeeper,
    instances,
    rescuer,
    promoter,
    cron,
    pruner,
    unhandled,
    waker,
    safetyPoll,
    services,
    selfClaim: {
      store,
      ledger,
      supervisor,
      workerId,
      leaseMs,
      serving: options.queueServing,
      kinds,
      kindsByClass,
      running: hooks.running,
      requestClaim,
    },
    commands: { store, logger, emit, workerId, supervisor, requestClaim },
  };
}
