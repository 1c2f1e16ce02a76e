import type { Command } from 'commander';
import { describeCommandResult } from './job-command-result.js';
import { withCliStore } from './open-cli-store.js';
import { parseJobId } from './parse-arguments.js';
import { printLine } from './print.js';

/**
 * `nudge cancel <id>`: a `SCHEDULED`, `PENDING` or `RUNNING` job to `CANCELLED` (see
 * `Store.cancelJob`). The CLI writes to the database only: a running attempt is aborted by the
 * instance running it at its next heartbeat (within a third of the lease), not at once as
 * `POST /jobs/:id/cancel` on that instance does.
 */
export function cancelCommand(program: Command): void {
  program
    .command('cancel')
    .description('cancel a WAITING, SCHEDULED, PENDING or RUNNING job')
    .argument('<id>', 'the job id', parseJobId)
    .action(async (id: number) => {
      await withCliStore(async ({ store }) => {
        const result = await store.cancelJob(id);
        const running = result.outcome === 'changed' && result.previous === 'RUNNING';
        printLine(
          describeCommandResult(id, result, {
            done: 'cancelled',
            appliesTo: 'WAITING, SCHEDULED, PENDING or RUNNING',
            note: running ? '; its instance aborts the attempt at its next heartbeat' : '',
          }),
        );
      });
    });
}
