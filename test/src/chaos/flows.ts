// Flow control under faults: dependency chains (some with a head that fails until the scenario
// fixes it and retries the flow), debounced and throttled jobs, enqueued into a queue of their own
// beside a scenario's other work. The checks read the audit: no job started before its dependency
// succeeded, and every job ended SUCCEEDED.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EnqueueInput } from '@nudge/store';
import { rawQuery } from '@nudge/test-databases';
import type { ChaosCluster } from './cluster.js';
import type { AuditRow } from './audit.js';
import { randomInt } from './run-scenario.js';

/** The queue the flows use. */
export const FLOWS_QUEUE = 'flows';

/** How many of each the flows enqueue. */
export interface FlowSizes {
  readonly chains: number;
  readonly chainLength: number;
  /** Debounce and throttle keys, and enqueues per key. */
  readonly keys: number;
  readonly perKey: number;
}

/** What {@link enqueueFlows} wrote: the accepted ids, and each chain member's dependency. */
export interface Flows {
  readonly accepted: number[];
  /** Chain member → the job it depends on. */
  readonly dependencyOf: Map<number, number>;
  /** The file whose existence lets the gated heads pass. */
  readonly passFile: string;
}

/**
 * Enqueues `sizes.chains` chains, each one batch in which every job depends on the one before; the
 * heads of every other chain are `gated` (they fail until {@link fixAndRetryFlows}).
 */
export async function enqueueChains(cluster: ChaosCluster, sizes: FlowSizes): Promise<Flows> {
  const passFile = join(cluster.ledgerDir, 'flows-pass');
  const accepted: number[] = [];
  const dependencyOf = new Map<number, number>();
  for (let chain = 0; chain < sizes.chains; chain += 1) {
    const batch: EnqueueInput[] = Array.from({ length: sizes.chainLength }, (_, i) => ({
      kind: i === 0 && chain % 2 === 0 ? 'gated' : 'work',
      queue: FLOWS_QUEUE,
      payload: { ms: randomInt(5, 40), passFile },
      ...(i > 0 ? { dependsOn: [{ index: i - 1 }] } : {}),
    }));
    const ids = await cluster.enqueue(batch);
    ids.forEach((id, i) => {
      const before = ids[i - 1];
      if (before !== undefined) dependencyOf.set(id, before);
    });
    accepted.push(...ids);
  }
  return { accepted, dependencyOf, passFile };
}

/**
 * Enqueues `perKey` debounced and `perKey` throttled jobs for each of `keys` keys, spread over
 * about `spreadMs`; @returns the accepted ids (a deduplicated enqueue answers its key's job).
 */
export async function enqueueDeduped(
  cluster: ChaosCluster,
  sizes: FlowSizes,
  spreadMs: number,
): Promise<number[]> {
  const accepted: number[] = [];
  for (let round = 0; round < sizes.perKey; round += 1) {
    const inputs: EnqueueInput[] = [];
    for (let key = 0; key < sizes.keys; key += 1) {
      inputs.push({
        kind: 'work',
        queue: FLOWS_QUEUE,
        payload: { ms: randomInt(5, 40), round },
        debounce: { key: `d${key}`, delayMs: 1_000 },
      });
      inputs.push({
        kind: 'work',
        queue: FLOWS_QUEUE,
        payload: { ms: randomInt(5, 40) },
        throttle: { key: `t${key}`, windowMs: 2_000 },
      });
    }
    accepted.push(...(await cluster.enqueue(inputs)));
    await new Promise((resolve) => setTimeout(resolve, spreadMs / sizes.perKey));
  }
  return accepted;
}

/**
 * Waits until every gated head has failed (a head caught by a fault is swept to FAILED: one
 * attempt), so that the retry finds them all; @throws Error after `timeoutMs`.
 */
export async function headsFailed(cluster: ChaosCluster, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await rawQuery<{ n: number | string }>(
      cluster.db,
      `SELECT count(*) AS n FROM nudge_jobs WHERE kind = 'gated' AND status <> 'FAILED'`,
    );
    if (Number(row?.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`gated heads did not all fail within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Opens the gate of the failed heads and retries the failed flows: heads, then their dependents. */
export async function fixAndRetryFlows(cluster: ChaosCluster, flows: Flows): Promise<number> {
  writeFileSync(flows.passFile, '');
  const heads = await cluster.store.retryJobs({ status: 'FAILED', queue: FLOWS_QUEUE });
  const dependents = await cluster.store.retryJobs({ status: 'CANCELLED', queue: FLOWS_QUEUE });
  return heads.changed + dependents.changed;
}

/** The flow checks, by name, from the audit and the final rows. */
export async function flowChecks(
  cluster: ChaosCluster,
  flows: Flows,
  deduped: readonly number[],
  audit: readonly AuditRow[],
): Promise<{ checks: Record<string, boolean>; notes: Record<string, number> }> {
  const starts = audit.filter((row) => row.newStatus === 'RUNNING' && row.oldStatus !== 'RUNNING');
  // A start of a chain member is early when its dependency had not succeeded by then (audit order).
  const succeededBefore = (id: number, seq: number): boolean =>
    audit.some((row) => row.jobId === id && row.newStatus === 'SUCCEEDED' && row.seq < seq);
  const early = starts.filter((s) => {
    const dependency = flows.dependencyOf.get(s.jobId);
    return dependency !== undefined && !succeededBefore(dependency, s.seq);
  }).length;
  const ids = [...new Set([...flows.accepted, ...deduped])];
  const rows = await rawQuery<{ id: number | string; status: string }>(
    cluster.db,
    `SELECT id, status FROM nudge_jobs WHERE queue = '${FLOWS_QUEUE}'`,
  );
  const status = new Map(rows.map((row) => [Number(row.id), row.status]));
  const notSucceeded = ids.filter((id) => status.get(id) !== 'SUCCEEDED').length;
  return {
    checks: {
      'no chain member started before its dependency succeeded': early === 0,
      'every flow job (chains retried, debounced, throttled) ended SUCCEEDED, none stuck': notSucceeded === 0,
    },
    notes: {
      'flow jobs': ids.length,
      'deduplicated enqueues': deduped.length - new Set(deduped).size,
      'early starts': early,
      'flow jobs not succeeded': notSucceeded,
    },
  };
}
