import { setTimeout as sleep } from 'node:timers/promises';
import { isTerminalStatus, type JobView, type NudgeClient } from '@nudge/client';
import type { JsonValue } from '@nudge/core';
import type { DatasetName } from './dataset-files.js';
import { ALL_ORIGINS } from './delay-report.js';
import { REVIEW_KIND } from './job-kinds.js';
import { nudgeCommitted } from './nudge-committed.js';
import type { ProducerDatabase } from './producer-database.js';
import { APPROVE_SIGNAL } from './review-report.js';

/** What the producer did with its review job and saw of it. */
export interface ReviewRun {
  /** The job once finished, with its steps (`GET /jobs/:id`). */
  readonly view: JobView;
  /** The `approve` signal's payload as the producer sent it; `null` when it sent none. */
  readonly approval: JsonValue | null;
}

/** What {@link runReviewFlow} needs. */
export interface ReviewFlowOptions {
  readonly dataset: DatasetName;
  /** Where the approved review is archived, relative to the server's working directory. */
  readonly outputDir?: string;
  /** Time between two reads of the job while waiting for it to wait, in ms. */
  readonly pollIntervalMs: number;
  /** Waits for the finished job until its deadline (the producer's `waitFor`). */
  waitFor(id: number): Promise<JobView>;
  /** Aborts the wait for the job to reach its signal wait. */
  readonly signal: AbortSignal;
  /** The producer's deadline, `Date.now()` ms. */
  readonly deadline: number;
}

/** Whether `view` is waiting for the `approve` signal. */
function waitsForApproval(view: JobView): boolean {
  const waiting = view.waitingFor;
  return waiting !== undefined && 'signal' in waiting && waiting.signal === APPROVE_SIGNAL;
}

/**
 * Reads job `id` until it waits for the `approve` signal or has finished.
 * @throws Error when neither happens before `deadline`
 */
async function untilWaiting(client: NudgeClient, id: number, options: ReviewFlowOptions): Promise<JobView> {
  for (;;) {
    const view = await client.get(id);
    if (waitsForApproval(view) || isTerminalStatus(view.status)) return view;
    if (Date.now() > options.deadline) {
      throw new Error(`job ${id} (${REVIEW_KIND}) did not reach its wait for "${APPROVE_SIGNAL}" in time`);
    }
    await sleep(options.pollIntervalMs, undefined, { signal: options.signal });
  }
}

/**
 * The demo's durable flow, from the producer's side: enqueues one `reviewReport` job over every
 * origin in a transaction of its own and nudges the server; once the job waits for the `approve`
 * signal (it has computed its summary and slept its cool-off, and holds no slot), sends the
 * signal inside another transaction of its own with `@nudge/client`'s `signal`, nudges again, and
 * waits for the job to finish.
 * @throws Error when the server cannot be reached, or the job does not reach its wait in time
 */
export async function runReviewFlow(
  client: NudgeClient,
  database: ProducerDatabase,
  options: ReviewFlowOptions,
): Promise<ReviewRun> {
  const outputDir = options.outputDir === undefined ? {} : { outputDir: options.outputDir };
  const [id] = await database.enqueueJobs([
    { kind: REVIEW_KIND, payload: { dataset: options.dataset, origin: ALL_ORIGINS, ...outputDir } },
  ]);
  if (id === undefined) throw new Error(`the ${REVIEW_KIND} job was not enqueued`);
  await nudgeCommitted(client, 1);
  const waiting = await untilWaiting(client, id, options);
  if (isTerminalStatus(waiting.status)) return { view: await client.get(id), approval: null };
  const approval = { by: 'demo producer', approvedAt: new Date().toISOString() };
  await database.sendSignal(id, APPROVE_SIGNAL, approval);
  // A hint only: the signal's commit made the job PENDING, and the server finds it by itself too.
  await client.nudge().catch(() => undefined);
  await options.waitFor(id);
  // The list read behind waitFor leaves out the steps: GET /jobs/:id has them.
  return { view: await client.get(id), approval };
}
