import type { Dialect } from '@nudge/store';
import { ChaosCluster, type ClusterTimers } from './cluster.js';
import type { ScenarioResult } from './scenario.js';

/** What a scenario's body reports back to {@link runInCluster}. */
export interface ScenarioBody {
  /** Ids of the jobs whose enqueue was accepted. */
  readonly accepted: readonly number[];
  /** Jobs that fail and retry by design: not duplicates. */
  readonly repeating?: ReadonlySet<number>;
  readonly checks?: Readonly<Record<string, boolean>>;
  readonly notes?: Readonly<Record<string, string | number>>;
  /** Recovery is judged against the cluster's bound unless `false`. @defaultValue true */
  readonly recoveryBound?: boolean;
  /** A recovery the scenario measured itself, instead of the ledger's: worst time and its bound, in ms. */
  readonly recovery?: { readonly worstMs: number; readonly boundMs: number };
}

/** Options of {@link runInCluster}. */
export interface ClusterScenario {
  readonly scenario: number;
  readonly title: string;
  readonly timers: ClusterTimers;
  /** Variables every instance gets. */
  readonly env?: Record<string, string>;
  /** Longest wait for every job to finish after the body, in ms. @defaultValue 60000 */
  readonly drainTimeoutMs?: number;
  /** PostgreSQL: a server of the scenario's own to create the database on. @defaultValue the test server */
  readonly postgresAdminUrl?: string;
}

/**
 * Runs `body` against a fresh {@link ChaosCluster} of `dialect`, waits for every job to finish,
 * restarting nothing (the body leaves the instances it wants running), checks the guarantees,
 * and removes the cluster. A job still unfinished after the drain timeout fails the check
 * `"every job finished"`.
 */
export async function runInCluster(
  spec: ClusterScenario,
  dialect: Dialect,
  body: (cluster: ChaosCluster) => Promise<ScenarioBody>,
): Promise<ScenarioResult> {
  const cluster = await ChaosCluster.create(dialect, spec.timers, spec.env, spec.postgresAdminUrl);
  try {
    const outcome = await body(cluster);
    const finished = await cluster.drained(spec.drainTimeoutMs ?? 60_000);
    const findings = await cluster.findings(outcome.accepted, outcome.repeating);
    if (findings.details.length > 0) console.error(findings.details.slice(0, 20).join('\n'));
    return {
      scenario: spec.scenario,
      title: spec.title,
      dialect,
      jobs: outcome.accepted.length,
      lost: findings.lost,
      fencingViolations: findings.fencingViolations,
      duplicatesExplained: findings.duplicatesExplained,
      duplicatesUnexplained: findings.duplicatesUnexplained,
      worstRecoveryMs: outcome.recovery?.worstMs ?? findings.worstRecoveryMs,
      recoveryBoundMs:
        outcome.recovery?.boundMs ?? (outcome.recoveryBound === false ? null : cluster.recoveryBoundMs),
      checks: { 'every job finished': finished, ...outcome.checks },
      ...(outcome.notes ? { notes: outcome.notes } : {}),
    };
  } finally {
    await cluster.close();
  }
}

/** A whole number from `min` to `max`, inclusive. */
export function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
