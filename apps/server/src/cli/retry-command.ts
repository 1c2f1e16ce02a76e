import type { Command } from 'commander';
import { describeCommandResult } from './job-command-result.js';
import { withCliStore } from './open-cli-store.js';
import { parseJobId } from './parse-arguments.js';
import { printLine } from './print.js';

/**
 * `nudge retry <id>`: a `FAILED` or `CANCELLED` job back to `PENDING` with fresh attempts (see
 * `Store.retryJob`). A running service picks it up within one poll interval.
 */
export function retryCommand(program: Command): void {
  program
    .command('retry')
    .description('retry a FAILED or CANCELLED job: PENDING again, with fresh attempts')
    .argument('<id>', 'the job id', parseJobId)
    .action(async (id: number) => {
      await withCliStore(async ({ store }) => {
        const result = await store.retryJob(id);
        printLine(
          describeCommandResult(id, result, {
            done: 'retried',
            appliesTo: 'FAILED or CANCELLED',
            note: '; a running service claims it within one poll interval',
          }),
        );
      });
    });
}
