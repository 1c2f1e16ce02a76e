import type { ScenarioResult } from './scenario.js';
import { failedGuarantees } from './scenario.js';

const HEADER = [
  'scenario',
  'dialect',
  'jobs',
  'lost',
  'fencing violations',
  'duplicates explained / unexplained',
  'worst recovery / bound',
  'checks',
];

function recovery(result: ScenarioResult): string {
  if (result.worstRecoveryMs === null) return '–';
  const worst = `${(result.worstRecoveryMs / 1000).toFixed(1)} s`;
  return result.recoveryBoundMs === null
    ? worst
    : `${worst} / ${(result.recoveryBoundMs / 1000).toFixed(1)} s`;
}

/** The results as one Markdown table (the form `docs/reliability.md` publishes). */
export function resultsTable(results: readonly ScenarioResult[]): string {
  const lines = [`| ${HEADER.join(' | ')} |`, `| ${HEADER.map(() => '---').join(' | ')} |`];
  for (const r of results) {
    const checks = Object.values(r.checks);
    const failed = failedGuarantees(r);
    lines.push(
      `| ${r.scenario}. ${r.title} | ${r.dialect} | ${r.jobs} | ${r.lost} | ${r.fencingViolations} | ${r.duplicatesExplained} / ${r.duplicatesUnexplained} | ${recovery(r)} | ${checks.filter(Boolean).length}/${checks.length}${failed.length > 0 ? ' ✗' : ''} |`,
    );
  }
  return lines.join('\n');
}
