import { fileURLToPath } from 'node:url';
import type { Job } from '@nudge/core';
import { DIALECTS } from '@nudge/test-databases';
import { readAudit } from '../audit.js';
import type { ChaosCluster, Instance } from '../cluster.js';
import { readLedger } from '../ledger.js';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, randomInt, runInCluster } from '../run-scenario.js';

const FAULTY_HANDLERS = fileURLToPath(new URL('../faulty-handlers.js', import.meta.url));
/** Normal `work` jobs streamed while the faults happen. */
const WORK: Record<ChaosSize, number> = { test: 400, ci: 1_500, full: 5_000 };
/** Rounds of faulty jobs (one of each kind per round), spread over the stream. */
const ROUNDS: Record<ChaosSize, number> = { test: 1, ci: 3, full: 10 };
const PER_SECOND = 50;
const CPU_THREADS = 2;
const ASYNC_CONCURRENCY = 50;
const HEAP_MB = 32;

/** Each faulty kind of faulty-handlers.ts: its attempts, and the error every attempt must record. */
const FAULTS = [
  { kind: 'exitThread', maxAttempts: 2, cause: /^the handler called process\.exit\(7\)$/ },
  { kind: 'throwFromTimer', maxAttempts: 2, cause: /^threw outside its promise: boom from a timer$/ },
  { kind: 'outOfMemory', maxAttempts: 1, cause: new RegExp(`ran out of memory \\(limit ${HEAP_MB} MB\\)`) },
  {
    kind: 'spinForever',
    maxAttempts: 1,
    cause: /^timed out after 500 ms and ignored its abort signal; the handler's thread was terminated$/,
  },
  {
    kind: 'ignoreAbort',
    maxAttempts: 1,
    cause: /^timed out after 1000 ms and ignored its abort signal; the handler's thread was terminated$/,
  },
] as const;

/** Every job of `ids`, read through the store (parsed `errors`). */
async function jobsOf(cluster: ChaosCluster, ids: readonly number[]): Promise<Map<number, Job>> {
  const jobs = new Map<number, Job>();
  for (let i = 0; i < ids.length; i += 500) {
    const page = await cluster.store.listJobs({ ids: ids.slice(i, i + 500), limit: 500 });
    for (const job of page) jobs.set(job.id, job);
  }
  return jobs;
}

/** The instance's slot gauges from `GET /metrics`: `{ class: [busy, free] }`. */
async function slotGauges(instance: Instance): Promise<Record<string, [number, number]>> {
  const text = await (await fetch(`${instance.server.url}/metrics`)).text();
  const slots: Record<string, [number, number]> = {};
  for (const match of text.matchAll(/^nudge_slots_(busy|free)\{execution="(\w+)"\} (\d+)$/gm)) {
    const [, which, execution, value] = match;
    const entry = (slots[execution!] ??= [NaN, NaN]);
    entry[which === 'busy' ? 0 : 1] = Number(value);
  }
  return slots;
}

/** Waits (up to 10 s) until no slot is busy and every one is free again: replacement threads are ready. */
async function slotsRecovered(instance: Instance, expected: Record<string, number>): Promise<string> {
  let last = '';
  for (let waited = 0; waited < 10_000; waited += 100) {
    const slots = await slotGauges(instance);
    last = JSON.stringify(slots);
    const ok = Object.entries(expected).every(([execution, total]) => {
      const [busy, free] = slots[execution] ?? [NaN, NaN];
      return busy === 0 && free === total;
    });
    if (ok) return '';
    await delay(100);
  }
  return last;
}

/**
 * Scenario 3: handlers that misbehave inside their threads, beside a stream of normal `work`
 * jobs on the same instance and the same async thread: one calls `process.exit`, one throws from
 * a timer, one runs out of heap, one spins past a short timeout, one async job ignores its abort
 * signal past its timeout; and two return first, leaving a timer that throws or calls
 * `process.exit`. Each faulty job ends FAILED after its attempts with an error naming its cause
 * (the two that returned SUCCEEDED: what their stray timer did is charged to nobody); every
 * `work` job SUCCEEDED at attempt 1 with no error, also those released from a thread a fault
 * ended; the process lives on and its slot gauges (`GET /metrics`) return to their maximum.
 */
export const handlerFaults: Scenario = {
  id: 3,
  title: 'handlers that exit, throw stray errors, run out of heap or ignore timeouts',
  dialects: DIALECTS,
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 3,
        title: handlerFaults.title,
        timers: { leaseMs: 2_000, sweepIntervalMs: 500, pollIntervalMs: 250 },
        env: {
          NUDGE_HANDLERS: FAULTY_HANDLERS,
          NUDGE_THREADS: String(CPU_THREADS),
          NUDGE_ASYNC_THREADS: '1',
          NUDGE_ASYNC_CONCURRENCY: String(ASYNC_CONCURRENCY),
          NUDGE_MAX_OLD_GENERATION_MB: String(HEAP_MB),
          NUDGE_ABORT_GRACE_MS: '200',
        },
      },
      dialect,
      async (cluster) => {
        const a = await cluster.start('a');
        const work = Array.from({ length: WORK[size] }, () => ({
          kind: 'work',
          payload: { ms: randomInt(200, 400) },
        }));
        const kinds = [...FAULTS.map((f) => f.kind), 'throwAfterReturn', 'exitAfterReturn'];
        const faultyInputs = Array.from({ length: ROUNDS[size] }, () =>
          kinds.map((kind) => ({
            kind,
            maxAttempts: FAULTS.find((f) => f.kind === kind)?.maxAttempts ?? 1,
          })),
        ).flat();
        // Faulty jobs go in one at a time, evenly through the stream, so each meets neighbours.
        const gapMs = ((WORK[size] / PER_SECOND) * 1000) / (faultyInputs.length + 1);
        const [workIds, faultyIds] = await Promise.all([
          cluster.enqueuePaced(work, PER_SECOND),
          (async () => {
            const ids: number[] = [];
            for (const input of faultyInputs) {
              await delay(gapMs);
              ids.push(...(await cluster.enqueue([input])));
            }
            return ids;
          })(),
        ]);
        await cluster.mustDrain(120_000);

        const jobs = await jobsOf(cluster, [...workIds, ...faultyIds]);
        const ofKind = (kind: string) =>
          faultyIds.map((id) => jobs.get(id)).filter((job) => job?.kind === kind) as Job[];
        const checks: Record<string, boolean> = {};
        for (const { kind, maxAttempts, cause } of FAULTS) {
          const ended = ofKind(kind);
          checks[`${kind}: FAILED after ${maxAttempts} attempt(s), each error naming its cause`] =
            ended.length === ROUNDS[size] &&
            ended.every(
              (job) =>
                job.status === 'FAILED' &&
                job.attempts === maxAttempts &&
                job.errors.length === maxAttempts &&
                job.errors.every((e) => cause.test(e.error)) &&
                cause.test(job.lastError ?? ''),
            );
        }
        for (const kind of ['throwAfterReturn', 'exitAfterReturn']) {
          checks[`${kind}: SUCCEEDED at attempt 1, its stray fault charged to nobody`] = ofKind(kind).every(
            (job) => job.status === 'SUCCEEDED' && job.attempts === 1 && job.errors.length === 0,
          );
        }

        // A neighbour on a thread a fault ended is released: RUNNING → PENDING, uncharged.
        const workSet = new Set(workIds);
        const released = new Set(
          (await readAudit(cluster.db))
            .filter((c) => workSet.has(c.jobId) && c.oldStatus === 'RUNNING' && c.newStatus === 'PENDING')
            .map((c) => c.jobId),
        );
        const neighbours = workIds.map((id) => jobs.get(id));
        const ledger = readLedger(cluster.ledgerDir).filter((e) => workSet.has(e.id));
        checks['faults ended threads with work jobs on them'] = released.size > 0;
        checks['every work job SUCCEEDED at attempt 1 with no error recorded'] = neighbours.every(
          (job) => job?.status === 'SUCCEEDED' && job.attempts === 1 && job.errors.length === 0,
        );
        checks['every execution of a work job ran as attempt 1 (releases were uncharged)'] = ledger.every(
          (e) => e.attempt === 1,
        );
        checks['the instance process is alive'] =
          !a.exited &&
          (await fetch(`${a.server.url}/healthz`)
            .then((r) => r.ok)
            .catch(() => false));
        const slots = await slotsRecovered(a, { cpu: CPU_THREADS, async: ASYNC_CONCURRENCY });
        checks['every slot is free again'] = slots === '';
        return {
          accepted: [...workIds, ...faultyIds],
          // Released neighbours ran again by design; faulty jobs retry or were released too.
          repeating: new Set([...released, ...faultyIds]),
          checks,
          notes: {
            'work jobs released from an ended thread': released.size,
            'work executions': ledger.length,
            ...(slots ? { 'slot gauges at the end': slots } : {}),
          },
        };
      },
    ),
};
