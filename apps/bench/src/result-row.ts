/** One row of the results table. */
export interface ResultRow {
  /** Scenario and size, such as `drain 20,000 no-op`. */
  readonly scenario: string;
  /** System label, such as `pg-boss`. */
  readonly system: string;
  /** What `value` measures, with its unit and which way is better. */
  readonly metric: string;
  /** The (median) result, formatted. */
  readonly value: string;
  /** A comparison, such as `nudge 0.45×`, or `''`. */
  readonly ratio: string;
  /** Jobs whose handler never ran, summed over the runs; `undefined` where no job ran. */
  readonly lost: number | undefined;
  /** Extra handler runs, summed over the runs; `undefined` where no job ran. */
  readonly duplicate: number | undefined;
  /** Runs the value is the median of. */
  readonly runs: number;
  /** Anything that qualifies the row: a failed check, a skipped step. */
  readonly note?: string;
}

/** The columns of the results table, in order. */
export const RESULT_COLUMNS = [
  { title: 'scenario' },
  { title: 'system' },
  { title: 'metric' },
  { title: 'result', align: 'right' },
  { title: 'ratio' },
  { title: 'lost', align: 'right' },
  { title: 'dup', align: 'right' },
  { title: 'runs', align: 'right' },
  { title: 'note' },
] as const;

/** The cells of `row` in {@link RESULT_COLUMNS} order. */
export function resultCells(row: ResultRow): string[] {
  return [
    row.scenario,
    row.system,
    row.metric,
    row.value,
    row.ratio,
    row.lost === undefined ? '—' : String(row.lost),
    row.duplicate === undefined ? '—' : String(row.duplicate),
    String(row.runs),
    row.note ?? '',
  ];
}
