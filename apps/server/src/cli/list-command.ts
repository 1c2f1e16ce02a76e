import type { Command } from 'commander';
import type { JobStatus } from '@nudge/core';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, toJobView } from '@nudge/http/views';
import { formatTable } from './format-table.js';
import { withCliStore } from './open-cli-store.js';
import { parseJobId, parseQueue, parseStatus, wholeNumber } from './parse-arguments.js';
import { printJson, printLine } from './print.js';

interface ListOptions {
  status?: JobStatus;
  kind?: string;
  queue?: string;
  limit: number;
  cursor?: number;
  json?: boolean;
}

/**
 * `nudge list [--status --kind --queue --limit --cursor] [--json]`: jobs newest first, a page at
 * a time, as `GET /jobs` lists them; `--json` prints `{"jobs": […], "nextCursor": "…" | null}`.
 */
export function listCommand(program: Command): void {
  program
    .command('list')
    .description('list jobs, newest first')
    .option('--status <status>', 'only jobs in this status', parseStatus)
    .option('--kind <kind>', 'only jobs of this kind')
    .option('--queue <name>', 'only jobs of this queue', parseQueue)
    .option(
      '--limit <n>',
      `jobs per page, 1 to ${MAX_LIST_LIMIT}`,
      wholeNumber(1, MAX_LIST_LIMIT),
      DEFAULT_LIST_LIMIT,
    )
    .option('--cursor <id>', 'the next page: the cursor the previous page printed', parseJobId)
    .option('--json', 'print {"jobs": [...], "nextCursor": ...} as GET /jobs answers')
    .action(async (options: ListOptions) => {
      await withCliStore(async ({ store }) => {
        const jobs = await store.listJobs({
          status: options.status,
          kind: options.kind,
          queue: options.queue,
          beforeId: options.cursor,
          limit: options.limit,
        });
        const last = jobs.at(-1);
        const nextCursor = jobs.length === options.limit && last ? String(last.id) : null;
        if (options.json) return printJson({ jobs: jobs.map(toJobView), nextCursor });
        printLine(
          formatTable(
            ['ID', 'KIND', 'QUEUE', 'STATUS', 'ATTEMPTS', 'RUN AT', 'LAST ERROR'],
            jobs.map((job) => [
              String(job.id),
              job.kind,
              job.queue,
              job.status,
              `${job.attempts}/${job.maxAttempts}`,
              job.runAt.toISOString(),
              (job.lastError ?? '').replace(/\s+/g, ' ').slice(0, 60),
            ]),
            new Set([0, 4]),
          ),
        );
        if (nextCursor !== null) printLine(`more: nudge list --cursor ${nextCursor} (same filters)`);
      });
    });
}
