import { terminalSafe } from './terminal-text.js';
import type { Command } from 'commander';
import { TERMINAL_STATUSES } from '@nudge/core';
import type { Store, StoredJobLogLine } from '@nudge/store';
import { CliError } from './cli-error.js';
import { withCliStore } from './open-cli-store.js';
import { parseJobId, wholeNumber } from './parse-arguments.js';
import { plural, printLine } from './print.js';

/** Lines read per page. */
const PAGE_LINES = 1000;

interface LogsOptions {
  follow?: boolean;
  intervalMs: number;
}

/** One line as `nudge logs` prints it: time, attempt, level, message, and the fields as JSON. */
export function formatLogLine(line: StoredJobLogLine): string {
  const fields = line.fieldsJson === null ? '' : `  ${JSON.stringify(JSON.parse(line.fieldsJson))}`;
  const level = terminalSafe(line.level.toUpperCase()).padEnd(5);
  return `${line.at.toISOString()}  #${line.attempt}  ${level}  ${terminalSafe(line.message)}${fields}`;
}

/**
 * Prints every line of job `id` after `after`, page by page.
 * @returns the cursor after the last line printed, and the job's count of dropped lines
 * @throws CliError when no job has the id
 */
async function printPages(
  store: Store,
  id: number,
  after: number,
): Promise<{ cursor: number; dropped: number }> {
  let cursor = after;
  for (;;) {
    const page = await store.readJobLogs({ jobId: id, after: cursor, limit: PAGE_LINES });
    if (!page) {
      throw new CliError(
        cursor === 0
          ? `no job has id ${id}: check the id (nudge list shows the newest)`
          : `job ${id} was deleted (retention) while its log was read`,
      );
    }
    for (const line of page.lines) printLine(formatLogLine(line));
    cursor = page.lines.at(-1)?.seq ?? cursor;
    if (page.lines.length < PAGE_LINES) return { cursor, dropped: page.dropped };
  }
}

/**
 * `nudge logs <id> [--follow] [--interval-ms N]`: prints a job's `ctx.log` lines oldest first
 * (time, attempt, level, message, fields), then how many lines were dropped over its caps, if
 * any. With `--follow`, keeps reading new lines every `--interval-ms` until the job has finished
 * and every line stored by then is printed, then exits 0 (lines are stored before the job's
 * outcome, unless their write took longer than `NUDGE_LOG_FLUSH_WAIT_MS`).
 *
 * Fails (exit 1, one line) for an unknown job.
 */
export function logsCommand(program: Command): void {
  program
    .command('logs')
    .description("print a job's log lines (ctx.log); --follow waits for new ones until the job finishes")
    .argument('<id>', 'the job id', parseJobId)
    .option('-f, --follow', 'keep printing new lines until the job has finished')
    .option('--interval-ms <ms>', 'time between two reads with --follow', wholeNumber(10, 60_000), 500)
    .action(async (id: number, options: LogsOptions) => {
      await withCliStore(async ({ store }) => {
        let cursor = 0;
        let dropped = 0;
        for (;;) {
          // The status first: lines stored before the outcome are then all read below.
          const finished =
            !options.follow || TERMINAL_STATUSES.includes((await jobStatus(store, id)) ?? 'SUCCEEDED');
          ({ cursor, dropped } = await printPages(store, id, cursor));
          if (finished) break;
          await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
        }
        if (dropped > 0) printLine(`(${plural(dropped, 'line')} dropped over the job's caps)`);
      });
    });
}

/** The job's status, `undefined` when no job has the id (the read of its log then says so). */
async function jobStatus(store: Store, id: number) {
  return (await store.getJob(id))?.status;
}
