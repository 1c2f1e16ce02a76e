import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { silentLogger } from '@nudge/core';
import type { ClaimedJob } from '@nudge/store';
import { AttemptStatus } from './attempt-status.js';
import type { ExecutionPoolListener, LostAttempt } from './execution-pool.js';
import { PiscinaPool } from './piscina-pool.js';
import type { AttemptResult } from './thread-messages.js';

/** cpu kinds: one that holds until its signal fires, one that ignores it, and crashing ones. */
const HANDLERS = `import { resourceLimits } from 'node:worker_threads';
// An abort that reaches the worker before the job starts comes as a signal already aborted.
const untilAborted = (signal) =>
  signal.aborted
    ? Promise.resolve('aborted')
    : new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted')));
export const hold = (_payload, ctx) => untilAborted(ctx.signal);
export const stubborn = () => new Promise(() => undefined);
export const exit = () => process.exit(7);
export const oom = () => { const keep = []; for (;;) keep.push(new Array(100_000).fill(Math.random())); };
export const limits = () => resourceLimits;
export const youngLimits = { handler: () => resourceLimits, maxYoungGenerationSizeMb: 24 };
export const youngHold = {
  handler: (_payload, ctx) => untilAborted(ctx.signal),
  maxYoungGenerationSizeMb: 24,
};
`;

type Report =
  | { type: 'results'; results: readonly AttemptResult[] }
  | { type: 'lost'; lost: readonly LostAttempt[]; cause: unknown; terminated: boolean; culpritKnown: boolean }
  | { type: 'ready' };

/** Records what the pool reports; `next()` resolves with the next report (no sleeping). */
class Recorder implements ExecutionPoolListener {
  readonly #queue: Report[] = [];
  #waiter: ((report: Report) => void) | undefined;

  #push(report: Report): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter) waiter(report);
    else this.#queue.push(report);
  }

  onResults(_execution: string, results: readonly AttemptResult[]): void {
    this.#push({ type: 'results', results });
  }
  onThreadReady(): void {
    this.#push({ type: 'ready' });
  }
  onProgress(): void {}
  onLogs(): void {}
  onStepWrite(): void {}
  onThreadLost(
    _execution: string,
    lost: readonly LostAttempt[],
    cause: unknown,
    terminated: boolean,
    culpritKnown: boolean,
  ): void {
    this.#push({ type: 'lost', lost, cause, terminated, culpritKnown });
  }

  next(): Promise<Report> {
    const queued = this.#queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no report within 10 s')), 10_000);
      this.#waiter = (report) => {
        clearTimeout(timer);
        resolve(report);
      };
    });
  }
}

let nextId = 1;
function job(kind: string): ClaimedJob {
  const id = nextId++;
  return { id, version: 1, kind, attempt: 1, payloadJson: '{}', queue: 'default' };
}

describe('PiscinaPool', () => {
  let dir: string;
  let pool: PiscinaPool | undefined;
  let recorder: Recorder;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-piscina-'));
    writeFileSync(join(dir, 'handlers.mjs'), HANDLERS);
    recorder = new Recorder();
  });
  afterEach(async () => {
    await pool?.destroy();
    pool = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(threads: number, young: Record<string, number> = {}): Promise<PiscinaPool> {
    pool = await PiscinaPool.start(
      {
        execution: 'cpu',
        handlersUrl: pathToFileURL(join(dir, 'handlers.mjs')).href,
        threads,
        maxOldGenerationSizeMb: 32,
        youngGenerationMbByKind: new Map(Object.entries(young)),
        logLinesPerJob: 1000,
        niceIncrement: 0,
        progressIntervalMs: 1000,
        logger: silentLogger,
      },
      recorder,
    );
    return pool;
  }

  it('hands a job over only to an idle worker: the free count is exact and Piscina never queues', async () => {
    const p = await start(2);
    assert.equal(p.capacity, 2);
    assert.equal(p.free, 2);
    const [a, b, c] = [job('hold'), job('hold'), job('hold')];
    assert.deepEqual(p.dispatch([a]), []);
    assert.equal(p.queued, 0, 'the job went to a worker, not to the queue');
    assert.equal(p.free, 1);
    assert.deepEqual(p.dispatch([b, c]), [c], 'the job with no idle worker is returned, unstarted');
    assert.equal(p.queued, 0);
    assert.equal(p.free, 0);

    p.abort([{ id: a.id, version: 1 }], 'stop');
    const report = await recorder.next();
    assert.deepEqual(report, { type: 'results', results: [[a.id, 1, AttemptStatus.succeeded, '"aborted"']] });
    assert.equal(p.free, 1, 'its worker is idle again');
    p.abort([{ id: b.id, version: 1 }], 'stop');
    assert.equal((await recorder.next()).type, 'results');
    assert.equal(p.free, 2);
  });

  it('terminates the worker of a job that ignores its signal; the attempt is lost, terminated, and the worker replaced', async () => {
    const p = await start(1);
    const stubborn = job('stubborn');
    p.dispatch([stubborn]);
    p.abort([{ id: stubborn.id, version: 1 }], 'timed out');
    p.terminateThreadOf(stubborn.id);
    const lost = await recorder.next();
    assert.equal(lost.type, 'lost');
    assert.ok(lost.type === 'lost');
    assert.deepEqual(lost.lost, [{ id: stubborn.id, version: 1 }]);
    assert.equal(lost.terminated, true);
    assert.equal(p.free, 0, 'no worker is ready until the replacement has loaded the module');
    assert.deepEqual(await recorder.next(), { type: 'ready' });
    assert.equal(p.free, 1);
    assert.deepEqual(p.dispatch([job('hold')]), [], 'the replacement runs the next job');
    assert.equal(p.queued, 0);
  });

  it('a job that calls process.exit is named the culprit; one out of memory fails with the cause', async () => {
    const p = await start(1);
    const exiting = job('exit');
    p.dispatch([exiting]);
    const exited = await recorder.next();
    assert.ok(exited.type === 'lost');
    assert.deepEqual(exited.lost, [
      { id: exiting.id, version: 1, culpritError: 'the handler called process.exit(7)' },
    ]);
    assert.equal(exited.terminated, false);
    assert.deepEqual(await recorder.next(), { type: 'ready' });

    const hungry = job('oom');
    p.dispatch([hungry]);
    const starved = await recorder.next();
    assert.ok(starved.type === 'lost');
    assert.deepEqual(starved.lost, [{ id: hungry.id, version: 1 }]);
    assert.equal((starved.cause as { code?: string }).code, 'ERR_WORKER_OUT_OF_MEMORY');
    assert.deepEqual(await recorder.next(), { type: 'ready' });
    assert.equal(p.free, 1);
  });

  it("a kind with its own young generation runs in a Piscina pool of its own that shares the class's slots", async () => {
    const p = await start(1, { youngLimits: 24, youngHold: 24 });
    const own = job('youngLimits');
    p.dispatch([own]);
    const ownReport = await recorder.next();
    assert.ok(ownReport.type === 'results');
    const ownLimits = JSON.parse((ownReport.results[0]?.[3] as string | undefined) ?? 'null') as Record<
      string,
      number
    >;
    assert.equal(ownLimits.maxYoungGenerationSizeMb, 24);
    assert.equal(ownLimits.maxOldGenerationSizeMb, 32);
    const shared = job('limits');
    p.dispatch([shared]);
    const sharedReport = await recorder.next();
    assert.ok(sharedReport.type === 'results');
    const sharedLimits = JSON.parse((sharedReport.results[0]?.[3] as string | undefined) ?? 'null') as Record<
      string,
      number
    >;
    assert.notEqual(sharedLimits.maxYoungGenerationSizeMb, 24);

    const holding = job('youngHold');
    assert.deepEqual(p.dispatch([holding]), []);
    assert.equal(p.free, 0, 'one slot for the class, taken by the kind with its own pool');
    const other = job('hold');
    assert.deepEqual(p.dispatch([other]), [other], 'the shared pool has an idle worker, but no slot');
    assert.equal(p.queued, 0);
    p.abort([{ id: holding.id, version: 1 }], 'stop');
    assert.equal((await recorder.next()).type, 'results');
    assert.equal(p.free, 1);
  });
});
