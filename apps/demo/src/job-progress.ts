import cliProgress from 'cli-progress';

/** Counts shown beside the bar. */
export interface ProgressCounts {
  /** Jobs finished (succeeded, failed or cancelled). */
  readonly done: number;
  readonly running: number;
  readonly failed: number;
}

/**
 * A progress bar for the demo's jobs on stderr (drawn only when stderr is a terminal, so logs and
 * CI output stay clean). The total can grow or shrink as follow-up jobs are planned or dropped.
 */
export class JobProgress {
  readonly #bar = new cliProgress.SingleBar(
    {
      format: ' {bar} {value}/{total} jobs | {running} running | {failed} failed | {duration_formatted}',
      hideCursor: true,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );

  /** Draws the bar at 0 of `total` jobs. */
  constructor(total: number) {
    this.#bar.start(total, 0, { running: 0, failed: 0 });
  }

  /** Changes the number of jobs expected in all. */
  setTotal(total: number): void {
    this.#bar.setTotal(total);
  }

  /** Moves the bar. */
  update(counts: ProgressCounts): void {
    this.#bar.update(counts.done, { running: counts.running, failed: counts.failed });
  }

  /** Draws the bar a last time and releases the terminal line. */
  stop(): void {
    this.#bar.stop();
  }
}
