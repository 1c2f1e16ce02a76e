import type { Command } from 'commander';
import type { JobStatus } from '@nudge/core';
import { bulkCommandForm, givenFilters } from './bulk-command-form.js';
import { describeCommandResult } from './job-command-result.js';
import { withCliStore } from './open-cli-store.js';
import {
  parseCancelStatuses,
  parseDateTime,
  parseJobId,
  parseQueue,
  wholeNumber,
} from './parse-arguments.js';
import { plural, printJson, printLine } from './print.js';

interface CancelOptions {
  status?: JobStatus[];
  kind?: string;
  queue?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  limit?: number;
  json?: boolean;
}

const FILTERS = ['status', 'kind', 'queue', 'created-after', 'created-before', 'limit'];

/**
 * `nudge cancel <id>`: a `SCHEDULED`, `PENDING` or `RUNNING` job to `CANCELLED` (see
 * `Store.cancelJob`). `nudge cancel [--status LIST --kind --queue --created-after
 * --created-before --limit] [--json]`: every unfinished job that matches, as `POST /jobs/cancel`
 * does (see `Store.cancelJobs`), printing the count. The CLI writes to the database only: a
 * running attempt is aborted by the instance running it at its next heartbeat (within a third of
 * the lease), not at once as the HTTP routes on that instance do. An id and filters together, or
 * neither, is an error.
 */
export function cancelCommand(program: Command): void {
  program
    .command('cancel')
    .description(
      'cancel a WAITING, SCHEDULED, PENDING or RUNNING job, or every unfinished one matching the filters',
    )
    .argument('[id]', 'the job id (or give filters instead)', parseJobId)
    .option(
      '--status <list>',
      'only jobs in these statuses, separated by commas (default: every unfinished status)',
      parseCancelStatuses,
    )
    .option('--kind <kind>', 'only jobs of this kind')
    .option('--queue <name>', 'only jobs of this queue', parseQueue)
    .option('--created-after <date-time>', 'only jobs created at or after this time', parseDateTime)
    .option('--created-before <date-time>', 'only jobs created before this time', parseDateTime)
    .option('--limit <n>', 'cancel at most this many jobs', wholeNumber(1, Number.MAX_SAFE_INTEGER))
    .option('--json', 'print {"cancelled": n, "isolated": n} as POST /jobs/cancel answers')
    .action(async (id: number | undefined, options: CancelOptions) => {
      const given = givenFilters({ ...options }, FILTERS);
      const asked = bulkCommandForm('cancel', id, given, '--queue emails');
      await withCliStore(async ({ store }) => {
        if (asked.form === 'bulk') {
          const result = await store.cancelJobs({
            statuses: options.status,
            kind: options.kind,
            queue: options.queue,
            createdAfter: options.createdAfter,
            createdBefore: options.createdBefore,
            limit: options.limit,
          });
          if (options.json) return printJson({ cancelled: result.changed, isolated: result.isolated });
          const running = result.running.length;
          printLine(
            `cancelled ${plural(result.changed, 'job')}${running > 0 ? `; ${running} of them running: their instances abort the attempts at their next heartbeat` : ''}`,
          );
          return;
        }
        const result = await store.cancelJob(asked.id);
        const running = result.outcome === 'changed' && result.previous === 'RUNNING';
        printLine(
          describeCommandResult(asked.id, result, {
            done: 'cancelled',
            appliesTo: 'WAITING, SCHEDULED, PENDING or RUNNING',
            note: running ? '; its instance aborts the attempt at its next heartbeat' : '',
          }),
        );
      });
    });
}
