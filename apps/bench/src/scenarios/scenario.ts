import type { BenchOptions, ScenarioName } from '../cli-options.js';
import type { BurnCalibration } from '../calibrate-burn.js';
import type { SystemContext, SystemSpec } from '../bench-system.js';
import type { ReportListener } from '../report/report-listener.js';
import type { ResultRow } from '../result-row.js';

/** What every scenario gets. */
export interface ScenarioContext {
  readonly options: BenchOptions;
  readonly listener: ReportListener;
  readonly systemContext: SystemContext;
  /** The systems selected and reachable, in table order (nudge on PostgreSQL first when selected). */
  readonly systems: readonly SystemSpec[];
  /** The burn loop sized for `--cpu-ms` on this machine. */
  readonly burn: BurnCalibration;
  /** Prints a progress line. */
  log(message: string): void;
}

/** One scenario of the bench. */
export interface Scenario {
  readonly name: ScenarioName;
  /** What it measures, one line, for the output. */
  readonly summary: string;
  run(context: ScenarioContext): Promise<ResultRow[]>;
}
