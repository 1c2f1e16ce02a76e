import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { silentLogger } from '@nudge/core';
import type { ClaimedJob, Store } from '@nudge/store';
import { DIALECTS, createMigratedDatabase, openStore, type TestDatabase } from '@nudge/test-databases';
import type { EngineEventName } from './engine-events.js';
import { resolveEngineOptions } from './engine-options.js';
import { AttemptSupervisor } from './attempt-supervisor.js';
import { OutcomeWriter } from './outcome-writer.js';
import { ProgressWriter } from './progress-writer.js';
import { LogWriter } from './log-writer.js';
import { StepRecorder } from './step-recorder.js';
import { SlotLedger } from './slot-ledger.js';
import { ThreadPool } from './threads/thread-pool.js';

/** One async kind that runs until its signal fires. */
const HANDLERS = `export const hold = {
  execution: 'async',
  handler: (_payload, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
};
`;
const PER_THREAD = 4;

/** Polls `check` every 10 ms until it holds; rejects naming `what` after 5 s. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

for (const dialect of DIALECTS) {
  describe(`AttemptSupervisor and SlotLedger: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    let dir: string;
    let pool: ThreadPool | undefined;
    beforeEach(async () => {
      db = await createMigratedDatabase(dialect);
      store = await openStore(db);
      dir = mkdtempSync(join(tmpdir(), 'nudge-supervisor-'));
    });
    afterEach(async () => {
      await pool?.destroy();
      await store.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    /** A supervisor and its ledger over one async thread of `PER_THREAD` places, wired as the engine wires it. */
    async function createSupervisor() {
      const file = join(dir, 'handlers.mjs');
      writeFileSync(file, HANDLERS);
      const events: EngineEventName[] = [];
      const emit = (name: EngineEventName): void => void events.push(name);
      const target: { supervisor?: AttemptSupervisor } = {};
      let threadsReady = 0;
      pool = await ThreadPool.start(
        {
          execution: 'async',
          handlersUrl: pathToFileURL(file).href,
          threads: 1,
          perThread: PER_THREAD,
          maxOldGenerationSizeMb: 64,
          niceIncrement: 0,
          progressIntervalMs: 1000,
          logLinesPerJob: 1000,
          logger: silentLogger,
        },
        {
          onResults: (execution, results) => target.supervisor?.onResults(execution, results),
          onThreadLost: (...args) => target.supervisor?.onThreadLost(...args),
          onThreadReady: (execution) => {
            threadsReady += 1;
            target.supervisor?.onThreadReady(execution);
          },
          onProgress: (progress) => target.supervisor?.onProgress(progress),
          onLogs: (batches) => target.supervisor?.onLogs(batches),
          onStepWrite: (message, reply) => target.supervisor?.onStepWrite(message, reply),
        },
      );
      const writer = new OutcomeWriter({
        store,
        logger: silentLogger,
        emit,
        onWritten: (leases) => target.supervisor?.written(leases),
      });
      const ledger = new SlotLedger(new Map([['async', pool]]), () => undefined);
      const supervisor = new AttemptSupervisor({
        ledger,
        options: resolveEngineOptions({
          store,
          handlers: file,
          asyncConcurrency: PER_THREAD,
          abortGraceMs: 0,
        }),
        pools: new Map([['async', pool]]),
        kinds: new Map([['hold', 'async']]),
        writer,
        progress: new ProgressWriter({ store, logger: silentLogger, emit, intervalMs: 1000 }),
        logs: new LogWriter({
          store,
          logger: silentLogger,
          emit,
          intervalMs: 1000,
          caps: { linesPerJob: 1000, bytesPerJob: 1_000_000 },
          flushWaitMs: 1000,
        }),
        steps: new StepRecorder({
          store,
          emit,
          leaseMs: 60_000,
          onLost: (lease) => target.supervisor?.loseLeases([lease]),
        }),
        emit,
        outcomes: { maxOldGenerationSizeMb: 64, timeoutMs: () => 60_000, retryDelayMs: () => 0 },
        onSlotsFreed: () => undefined,
        onQueuesFreed: () => undefined,
      });
      target.supervisor = supervisor;
      return { supervisor, ledger, writer, events, threadsReady: () => threadsReady };
    }

    /** Claims one waiting job of kind `hold`. */
    async function claimOne(): Promise<ClaimedJob> {
      const [job] = await store.claim({
        workerId: 'w1',
        leaseMs: 60_000,
        groups: [{ kinds: ['hold'], limit: 1 }],
      });
      assert.ok(job, 'a job was claimed');
      return job;
    }

    // A claim holds its places when it starts; the thread they were on can end before the claim
    // returns (a handler exits, a timeout terminates it). The jobs it brings back then find no
    // thread: they must go back to waiting, uncharged, and the service must go on.
    it('gives back, uncharged, the jobs of a claim whose thread ended during its round trip', async () => {
      await store.enqueueMany([{ kind: 'hold' }, { kind: 'hold' }]);
      const e = await createSupervisor();
      assert.equal(e.ledger.reserve('async', 1), 1);
      const first = await claimOne();
      e.supervisor.start([first]);
      assert.equal(e.ledger.reserve('async', 1), 1, 'the next claim holds a place');
      const second = await claimOne();
      pool!.terminateThreadOf(first.id);
      assert.equal(e.ledger.free('async'), 0, 'no ready thread: no place');

      assert.doesNotThrow(() => e.supervisor.start([second]));
      await until(() => e.writer.pending === 0 && e.supervisor.running === 0, 'every outcome written');
      await e.writer.flush();
      const row = await store.getJob(second.id);
      assert.equal(row?.status, 'PENDING', 'given back to wait');
      assert.equal(row?.version, second.version + 1, 'its claim fenced out');
      assert.equal(row?.attempts, 0, 'uncharged');
      assert.equal(e.events.filter((name) => name === 'job:started').length, 1, 'only the first one started');

      await until(() => e.threadsReady() === 1, 'the replacement thread');
      assert.equal(e.ledger.free('async'), PER_THREAD, 'every place is free again');
      assert.equal(e.ledger.reserve('async', 1), 1);
      const again = await claimOne();
      assert.ok(again.id === second.id || again.id === first.id, 'the given-back job is claimed again');
      e.supervisor.start([again]);
      assert.equal(e.supervisor.running, 1, 'and it runs');
      e.supervisor.abortAll();
      await until(() => e.supervisor.running === 0, 'the aborted attempt to end');
    });
  });
}
