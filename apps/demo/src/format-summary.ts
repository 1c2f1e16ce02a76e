import { dirname } from 'node:path';
import type { ArchiveResult } from './archive-json.js';
import type { AirportDelays } from './delay-report.js';
import type { DemoFindings } from './demo-findings.js';
import { formatColumns } from './format-columns.js';
import type { RunStats } from './run-stats.js';

/** What the demo's summary reports besides the findings. */
export interface RunSummary {
  readonly stats: RunStats;
  /** Report jobs among `stats.jobs`; the rest are archive jobs unless `jobKinds` says otherwise. */
  readonly reports: number;
  readonly archives: readonly ArchiveResult[];
  /**
   * What the jobs were, shown after their count, e.g. `11 parts, 1 merge, 1 archive`.
   * @defaultValue `<reports> reports, <jobs − reports> archives`
   */
  readonly jobKinds?: string;
}

const count = (n: number): string => n.toLocaleString('en-US');
const minutes = (n: number): string => `${Number.isInteger(n) ? n : n.toFixed(1)} min`;
const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
const kilobytes = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;
const milliseconds = (ms: number): string => (Number.isFinite(ms) ? `${Math.round(ms)} ms` : 'n/a');
const airport = (a: AirportDelays): string => `${a.iata}  ${a.name ?? '(not in airports.csv)'}`;

/**
 * The demo's closing summary, as aligned lines: what the data shows, then how the run went
 * (jobs, wall time, throughput, enqueue → start latency, archives written).
 */
export function formatSummary(findings: DemoFindings, run: RunSummary): string[] {
  const { worstOrigin: worst, bestOnTimeOrigin: best, busiestRoute: route, worstMonth: month } = findings;
  const { stats, archives } = run;
  const json = archives.reduce((sum, a) => sum + a.bytes, 0);
  const gzipped = archives.reduce((sum, a) => sum + a.gzipBytes, 0);
  const folder = archives[0] ? dirname(archives[0].path) : '-';
  const outcome = stats.failed === 0 ? 'all succeeded' : `${stats.failed} failed`;
  return formatColumns([
    `Flight delays in ${findings.dataset}: ${count(findings.flights)} flights from ${findings.originAirports} ` +
      `origin airports, ${findings.firstMonth} to ${findings.lastMonth}`,
    '',
    'Findings',
    [
      'Worst origin by mean delay',
      airport(worst),
      `mean ${minutes(worst.total.meanDelayMinutes)}, p95 ${minutes(worst.total.p95DelayMinutes)}, ` +
        `${count(worst.total.flights)} flights`,
    ],
    [
      'Best on-time origin',
      airport(best),
      `${percent(best.total.delayedShare)} delayed > 15 min, mean ${minutes(best.total.meanDelayMinutes)}, ` +
        `${count(best.total.flights)} flights`,
    ],
    [
      'Busiest route',
      `${route.origin} → ${route.destination}`,
      `${count(route.flights)} flights, mean delay ${minutes(route.meanDelayMinutes)}`,
    ],
    [
      'Most delayed month',
      month.month,
      `${percent(month.delayedShare)} delayed > 15 min, ${count(month.flights)} flights`,
    ],
    '',
    'Run',
    [
      'Jobs',
      `${stats.jobs} (${run.jobKinds ?? `${run.reports} reports, ${stats.jobs - run.reports} archives`}), ${outcome}`,
    ],
    ['Wall time', `${(stats.wallMs / 1000).toFixed(2)} s, first enqueue to last finish`],
    ['Throughput', `${stats.jobsPerSecond.toFixed(1)} jobs/s`],
    [
      'Enqueue → start latency',
      `p50 ${milliseconds(stats.latencyP50Ms)}, p99 ${milliseconds(stats.latencyP99Ms)}`,
    ],
    [
      'Archives',
      `${archives.length} files, ${kilobytes(json)} JSON → ${kilobytes(gzipped)} gzip, in ${folder}`,
    ],
  ]);
}
