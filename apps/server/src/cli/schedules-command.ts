import type { Command } from 'commander';
import { toScheduleView } from '@nudge/http/views';
import { formatTable } from './format-table.js';
import { withCliStore } from './open-cli-store.js';
import { printJson, printLine } from './print.js';

/**
 * `nudge schedules [--json]`: every recurring schedule an instance has registered, with its last
 * and next tick, as `GET /schedules` lists them.
 */
export function schedulesCommand(program: Command): void {
  program
    .command('schedules')
    .description('list the recurring schedules with their last and next tick')
    .option('--json', 'print {"schedules": […]} as GET /schedules answers')
    .action(async (options: { json?: boolean }) => {
      await withCliStore(async ({ store }) => {
        const schedules = (await store.listSchedules()).map(toScheduleView);
        if (options.json) return printJson({ schedules });
        if (schedules.length === 0)
          return printLine('no schedules: declare them in the handler module or NUDGE_SCHEDULES');
        printLine(
          formatTable(
            ['NAME', 'CRON', 'TIMEZONE', 'KIND', 'LAST TICK', 'NEXT TICK'],
            schedules.map((s) => [s.name, s.cron, s.timezone, s.kind, s.lastTickAt, s.nextTickAt ?? '-']),
          ),
        );
      });
    });
}
