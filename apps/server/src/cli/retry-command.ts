import { Option, type Command } from 'commander';
import type { JobStatus } from '@nudge/core';
import { bulkCommandForm, givenFilters } from './bulk-command-form.js';
import { CliError } from './cli-error.js';
import { describeCommandResult } from './job-command-result.js';
import { withCliStore } from './open-cli-store.js';
import { parseDateTime, parseJobId, parseQueue, parseRetryStatus, wholeNumber } from './parse-arguments.js';
import { plural, printJson, printLine } from './print.js';

interface RetryOptions {
  status?: JobStatus;
  kind?: string;
  queue?: string;
  finishedAfter?: Date;
  finishedBefore?: Date;
  limit?: number;
  fromStep?: string;
  resetSteps?: boolean;
  json?: boolean;
}

const FILTERS = ['status', 'kind', 'queue', 'finished-after', 'finished-before', 'limit'];

/**
 * `nudge retry <id>`: a `FAILED` or `CANCELLED` job back to `PENDING` with fresh attempts (see
 * `Store.retryJob`). `nudge retry --status FAILED [--kind --queue --finished-after
 * --finished-before --limit] [--json]`: every such job that matches, as `POST /jobs/retry` does
 * (see `Store.retryJobs`), printing the count. A running service picks them up within one poll
 * interval. An id and filters together, or neither, is an error.
 *
 * Either form keeps the jobs' recorded steps, or clears them: `--from-step <name>` that step and
 * the ones recorded after it (a single job without it is refused, `STEP_NOT_FOUND`; in the bulk
 * form such a job keeps its steps), `--reset-steps` all of them. Not both (exit code 2).
 */
export function retryCommand(program: Command): void {
  program
    .command('retry')
    .description(
      'retry a FAILED or CANCELLED job, or every one matching --status and filters: PENDING again, with fresh attempts',
    )
    .argument('[id]', 'the job id (or give filters instead)', parseJobId)
    .option('--status <status>', 'every job in this status: FAILED or CANCELLED', parseRetryStatus)
    .option('--kind <kind>', 'only jobs of this kind')
    .option('--queue <name>', 'only jobs of this queue', parseQueue)
    .option('--finished-after <date-time>', 'only jobs finished at or after this time', parseDateTime)
    .option('--finished-before <date-time>', 'only jobs finished before this time', parseDateTime)
    .option('--limit <n>', 'retry at most this many jobs', wholeNumber(1, Number.MAX_SAFE_INTEGER))
    .option(
      '--from-step <name>',
      'clear this step and the ones recorded after it, so they run again (default: keep every finished step)',
    )
    .addOption(
      new Option('--reset-steps', 'clear every recorded step: the job runs from the top').conflicts(
        'fromStep',
      ),
    )
    .option('--json', 'print {"retried": n, "isolated": n} as POST /jobs/retry answers')
    .action(async (id: number | undefined, options: RetryOptions) => {
      const given = givenFilters({ ...options }, FILTERS);
      const asked = bulkCommandForm('retry', id, given, '--status FAILED --kind sendEmail');
      const steps = { fromStep: options.fromStep, resetSteps: options.resetSteps };
      if (asked.form === 'one') {
        await withCliStore(async ({ store }) => {
          const result = await store.retryJob(asked.id, undefined, steps);
          printLine(
            describeCommandResult(asked.id, result, {
              done: 'retried',
              appliesTo: 'FAILED or CANCELLED',
              note: `${clearedNote(steps)}; a running service claims it within one poll interval`,
            }),
          );
        });
        return;
      }
      if (options.status === undefined)
        throw new CliError(
          'say which jobs to retry with --status FAILED or --status CANCELLED (the other filters narrow it)',
        );
      const status = options.status;
      await withCliStore(async ({ store }) => {
        const result = await store.retryJobs({
          status,
          kind: options.kind,
          queue: options.queue,
          finishedAfter: options.finishedAfter,
          finishedBefore: options.finishedBefore,
          limit: options.limit,
          ...steps,
        });
        if (options.json) return printJson({ retried: result.changed, isolated: result.isolated });
        printLine(
          `retried ${plural(result.changed, 'job')}${result.changed > 0 ? '; a running service claims them within one poll interval' : ''}`,
        );
      });
    });
}

/** What the line of a retry says of the steps it cleared (nothing when it kept them all). */
function clearedNote(steps: { fromStep?: string; resetSteps?: boolean }): string {
  if (steps.resetSteps === true) return '; every recorded step cleared';
  if (steps.fromStep !== undefined)
    return `; step ${JSON.stringify(steps.fromStep)} and the ones after it cleared`;
  return '';
}
