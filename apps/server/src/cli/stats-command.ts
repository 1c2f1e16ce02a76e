import type { Command } from 'commander';
import { JOB_STATUSES } from '@nudge/core';
import { instanceLiveWithinMs } from '@nudge/engine/settings';
import { toStatsView } from '@nudge/http/views';
import type { StatusCounts, StoreStats } from '@nudge/store';
import { formatTable } from './format-table.js';
import { withCliStore } from './open-cli-store.js';
import { formatDurationMs, printJson, printLine } from './print.js';

const ALL_COLUMNS = new Set(JOB_STATUSES.map((_, i) => i + 1).concat(JOB_STATUSES.length + 1));

function countsTable(title: string, rows: ReadonlyArray<[string, StatusCounts]>): string {
  return formatTable(
    [title, ...JOB_STATUSES, 'TOTAL'],
    rows.map(([name, counts]) => [
      name,
      ...JOB_STATUSES.map((status) => String(counts[status])),
      String(JOB_STATUSES.reduce((sum, status) => sum + counts[status], 0)),
    ]),
    ALL_COLUMNS,
  );
}

/** The stats as the human output shows them: three tables, three lines, the instances. */
export function describeStats(stats: StoreStats): string {
  const { succeeded, failed } = stats.lastHour;
  const rate =
    stats.failureRateLastHour === null
      ? 'none finished'
      : `${(stats.failureRateLastHour * 100).toFixed(1)} %`;
  const live = stats.instances;
  return [
    countsTable('JOBS', [['all', stats.byStatus]]),
    '',
    countsTable('KIND', Object.entries(stats.byKind)),
    '',
    countsTable('QUEUE', Object.entries(stats.byQueue)),
    '',
    `oldest pending:          ${stats.oldestPendingAgeMs === null ? 'none' : `${formatDurationMs(stats.oldestPendingAgeMs)} waiting`}`,
    `failure rate, last hour: ${rate} (${failed} failed, ${succeeded} succeeded)`,
    `live instances:          ${live.length}`,
    ...(live.length === 0
      ? []
      : [
          '',
          formatTable(
            ['INSTANCE', 'VERSION', 'KINDS', 'QUEUES', 'SLOTS', 'STARTED', 'LAST SEEN'],
            live.map((i) => [
              i.id,
              i.version ?? '-',
              i.kinds.join(',') || '-',
              i.queues.map((q) => (q.cap === undefined ? q.name : `${q.name}:${q.cap}`)).join(','),
              Object.entries(i.slots)
                .map(([execution, total]) => `${execution} ${total}`)
                .join(', ') || '-',
              i.startedAt.toISOString(),
              i.lastSeenAt.toISOString(),
            ]),
          ),
        ]),
  ].join('\n');
}

/**
 * `nudge stats [--json]`: jobs by status, kind and queue; the oldest pending age; the failure
 * rate of the last hour; live instances (seen within two leases, `NUDGE_LEASE_MS`). `--json`
 * prints what `GET /stats` answers.
 */
export function statsCommand(program: Command): void {
  program
    .command('stats')
    .description('counts by status, kind and queue; oldest pending age; failure rate; live instances')
    .option('--json', 'print the stats as GET /stats answers them')
    .action(async (options: { json?: boolean }) => {
      await withCliStore(async ({ store, config }) => {
        const stats = await store.stats({ instanceLiveWithinMs: instanceLiveWithinMs(config.leaseMs) });
        if (options.json) printJson(toStatsView(stats));
        else printLine(describeStats(stats));
      });
    });
}
