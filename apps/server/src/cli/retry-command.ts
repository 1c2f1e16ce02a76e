import type { Command } from 'commander';
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
  json?: boolean;
}

const FILTERS = ['status', 'kind', 'queue', 'finished-after', 'finished-before', 'limit'];

/**
 * `nudge retry <id>`: a `FAILED` or `CANCELLED` job back to `PENDING` with fresh attempts (see
 * `Store.retryJob`). `nudge retry --status FAILED [--kind --queue --finished-after
 * --finished-before --limit] [--json]`: every such job that matches, as `POST /jobs/retry` does
 * (see `Store.retryJobs`), printing the count. A running service picks them up within one poll
 * interval. An id and filters together, or neither, is an error.
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
    .option('--json', 'print {"retried": n, "isolated": n} as POST /jobs/retry answers')
    .action(async (id: number | undefined, options: RetryOptions) => {
      const given = givenFilters({ ...options }, FILTERS);
      const asked = bulkCommandForm('retry', id, given, '--status FAILED --kind sendEmail');
      if (asked.form === 'one') {
        await withCliStore(async ({ store }) => {
          const result = await store.retryJob(asked.id);
          printLine(
            describeCommandResult(asked.id, result, {
              done: 'retried',
              appliesTo: 'FAILED or CANCELLED',
              note: '; a running service claims it within one poll interval',
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
        });
        if (options.json) return printJson({ retried: result.changed, isolated: result.isolated });
        printLine(
          `retried ${plural(result.changed, 'job')}${result.changed > 0 ? '; a running service claims them within one poll interval' : ''}`,
        );
      });
    });
}
