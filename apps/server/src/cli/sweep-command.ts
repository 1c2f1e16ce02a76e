import type { Command } from 'commander';
import { DEFAULT_BACKOFF, retryDelayMs } from '@nudge/core';
import { withCliStore } from './open-cli-store.js';
import { plural, printJson, printLine } from './print.js';

/** Rows per page of the sweep, as the engine's rescuer pages. */
const PAGE_SIZE = 2000;

/**
 * `nudge sweep [--json]`: one pass of the recovery sweep (what every instance runs each
 * `NUDGE_SWEEP_INTERVAL_MS`): `RUNNING` jobs whose lease expired go back to wait for a retry, or
 * to `FAILED` when their attempts are used up. Retry delays follow the default backoff curve
 * (the handler module's per-kind backoff is not loaded). Prints the counts.
 */
export function sweepCommand(program: Command): void {
  program
    .command('sweep')
    .description('run one pass of the recovery sweep (expired leases) and print the counts')
    .option('--json', 'print {"requeued": n, "failed": n, "isolated": n, "passes": n}')
    .action(async (options: { json?: boolean }) => {
      await withCliStore(async ({ store }) => {
        let requeued = 0;
        let failed = 0;
        let isolated = 0;
        let passes = 0;
        for (;;) {
          const page = await store.sweepExpired({
            retryDelayMs: ({ attempts }) => retryDelayMs(attempts, DEFAULT_BACKOFF),
            limit: PAGE_SIZE,
          });
          passes += 1;
          requeued += page.requeued;
          failed += page.failed;
          isolated += page.isolated;
          // As the engine's rescuer: rows the database refused count as handled, and a page of
          // nothing but such rows ends the pass.
          const recovered = page.requeued + page.failed;
          if (recovered + page.isolated < PAGE_SIZE || recovered === 0) break;
        }
        if (options.json) return printJson({ requeued, failed, isolated, passes });
        printLine(
          `swept expired leases: ${plural(requeued, 'job')} back to wait for a retry, ${failed} failed (attempts used up)` +
            (isolated > 0
              ? `, ${isolated} refused by the database (see the log; left for a later sweep)`
              : ''),
        );
      });
    });
}
