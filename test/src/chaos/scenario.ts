import type { Dialect } from '@nudge/store';

/** How big a scenario runs: `test` in `pnpm test`, `ci` in CI, `full` with `pnpm test:chaos`. */
export type ChaosSize = 'test' | 'ci' | 'full';

/** What one run of a scenario on one dialect found: one row of the published table. */
export interface ScenarioResult {
  readonly scenario: number;
  readonly title: string;
  readonly dialect: Dialect;
  /** Jobs whose enqueue was accepted (or requests made, for the API scenario). */
  readonly jobs: number;
  /** Accepted jobs that vanished, or were left RUNNING with an expired lease: must be 0. */
  readonly lost: number;
  /**
   * Outcomes committed twice for one job, claims of one version twice, or an outcome written by
   * an attempt whose version was not the row's: must be 0.
   */
  readonly fencingViolations: number;
  /** Jobs run more than once because an earlier attempt's holder was killed, stopped, partitioned or timed out. */
  readonly duplicatesExplained: number;
  /** Jobs run more than once with no such cause: must be 0. */
  readonly duplicatesUnexplained: number;
  /** Worst time from a fault to the re-claim of the jobs it interrupted, in ms; `null` when nothing was interrupted. */
  readonly worstRecoveryMs: number | null;
  /** The bound `leaseMs + sweepIntervalMs + pollIntervalMs` the recovery is held to, in ms; `null` when not applicable. */
  readonly recoveryBoundMs: number | null;
  /** Scenario-specific findings that must hold, each `true` when it held (e.g. `"integrity_check ok": true`). */
  readonly checks: Readonly<Record<string, boolean>>;
  /** Short facts worth printing (e.g. `"5xx": 0`), not judged. */
  readonly notes?: Readonly<Record<string, string | number>>;
}

/** One fault-injection scenario. */
export interface Scenario {
  readonly id: number;
  readonly title: string;
  /** The dialects it applies to. */
  readonly dialects: readonly Dialect[];
  /**
   * Runs on a fresh database of `dialect`, creating and removing everything it uses.
   * @throws Error when the scenario cannot run (an instance does not start); a guarantee that
   *   failed is reported in the result, not thrown
   */
  run(dialect: Dialect, size: ChaosSize): Promise<ScenarioResult>;
}

/** Whether a result keeps every guarantee: nothing lost, no fencing violation, no unexplained duplicate, recovery within its bound (with `slackMs`), every check true. */
export function failedGuarantees(result: ScenarioResult, slackMs = 2_000): string[] {
  const failed: string[] = [];
  if (result.lost !== 0) failed.push(`${result.lost} jobs lost`);
  if (result.fencingViolations !== 0) failed.push(`${result.fencingViolations} fencing violations`);
  if (result.duplicatesUnexplained !== 0)
    failed.push(`${result.duplicatesUnexplained} unexplained duplicates`);
  if (
    result.worstRecoveryMs !== null &&
    result.recoveryBoundMs !== null &&
    result.worstRecoveryMs > result.recoveryBoundMs + slackMs
  ) {
    failed.push(`recovery took ${result.worstRecoveryMs} ms, over the bound of ${result.recoveryBoundMs} ms`);
  }
  for (const [check, held] of Object.entries(result.checks)) if (!held) failed.push(`check failed: ${check}`);
  return failed;
}
