import { formatNumber, formatRatio } from '../format-number.js';
import type { ResultRow } from '../result-row.js';
import { drainResult } from './drain-scenario.js';
import { insertFinishedRows } from './filler-rows.js';
import type { DrainMeasurement } from './measure-drain.js';
import { nudgeDrains } from './nudge-drains.js';
import type { Scenario } from './scenario.js';
import { median } from '../median.js';

/** One row of a nudge-only comparison of a drain against the drain on an empty table. */
export function againstEmptyRow(
  scenario: string,
  label: string,
  runs: readonly DrainMeasurement[],
  empty: readonly DrainMeasurement[],
  note?: string,
): ResultRow {
  const result = drainResult({ id: 'nudge', label: 'nudge (PostgreSQL)' }, runs);
  const rate = median(result.values);
  const notes = [result.note, note].filter((text) => text !== undefined);
  return {
    scenario,
    system: result.label,
    metric: `drain jobs/s, ${label}`,
    value: formatNumber(rate),
    ratio:
      runs === empty ? '' : `${formatRatio(rate, median(empty.map((run) => run.jobsPerSecond)))} of empty`,
    lost: result.lost,
    duplicate: result.duplicate,
    runs: runs.length,
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}

/** finished-rows: does history slow the queue down? */
export const finishedRowsScenario: Scenario = {
  name: 'finished-rows',
  summary:
    'nudge drain with M SUCCEEDED rows already in the table (INSERT … SELECT generate_series, then VACUUM ANALYZE) against an empty table',
  run: async (context) => {
    const { finishedRows, drainJobs } = context.options;
    const empty = await nudgeDrains(context, { label: 'finished-rows: empty table' });
    context.log(`finished-rows: inserting ${formatNumber(finishedRows)} SUCCEEDED rows…`);
    const full = await nudgeDrains(context, {
      label: `finished-rows: ${formatNumber(finishedRows)} finished rows`,
      prepare: (databaseUrl) => insertFinishedRows(databaseUrl, finishedRows),
    });
    const scenario = `finished-rows, drain ${formatNumber(drainJobs)}`;
    return [
      againstEmptyRow(scenario, 'empty table', empty, empty),
      againstEmptyRow(scenario, `${formatNumber(finishedRows)} SUCCEEDED rows`, full, empty),
    ];
  },
};
