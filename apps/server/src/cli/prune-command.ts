import type { Command } from 'commander';
import { silentLogger } from '@nudge/core';
import { describeRetention, type RetentionPolicy } from '@nudge/engine/settings';
import { loadRetentionConfig } from '../config.js';
import { CliError } from './cli-error.js';
import { describeFailure } from './describe-failure.js';
import { parseRetentionArgument } from './parse-arguments.js';
import { withCliStore } from './open-cli-store.js';
import { plural, printJson, printLine } from './print.js';

/**
 * `nudge prune [--retention LIST] [--json]`: one retention run (what every instance runs each
 * `NUDGE_PRUNE_INTERVAL_MS`): deletes finished jobs older than `NUDGE_RETENTION` allows, or
 * `--retention` when given (same form), in small batches. Prints the counts per status.
 */
export function pruneCommand(program: Command): void {
  program
    .command('prune')
    .description('delete finished jobs older than the retention allows, and print the counts')
    .option(
      '--retention <list>',
      'STATUS=AGE or KIND:STATUS=AGE entries, such as SUCCEEDED=1h,FAILED=7d (default: NUDGE_RETENTION)',
      parseRetentionArgument,
    )
    .option('--json', 'print {"deleted": n, "byStatus": {…}, "batches": n, "retention": "…"}')
    .action(async (options: { retention?: RetentionPolicy; json?: boolean }) => {
      const policy = options.retention ?? retentionFromEnvironment();
      // The engine's modules load only for this command, not for every `nudge` start.
      const { Pruner } = await import('@nudge/engine');
      await withCliStore(async ({ store }) => {
        const pruner = new Pruner({
          store,
          logger: silentLogger,
          emit: () => undefined,
          policy,
          pruneIntervalMs: 0,
        });
        const result = await pruner.runOnce();
        const retention = describeRetention(policy);
        if (options.json) return printJson({ ...result, retention });
        const { SUCCEEDED, FAILED, CANCELLED } = result.byStatus;
        printLine(
          `pruned ${plural(result.deleted, 'finished job')} (${SUCCEEDED} succeeded, ${FAILED} failed, ${CANCELLED} cancelled) in ${plural(result.batches, 'batch', 'batches')}; retention ${retention}`,
        );
      });
    });
}

function retentionFromEnvironment(): RetentionPolicy {
  try {
    return loadRetentionConfig();
  } catch (error) {
    throw new CliError(describeFailure(error));
  }
}
