import type { Command } from 'commander';
import type { Job } from '@nudge/core';
import { toJobView } from '@nudge/http/views';
import { CliError } from './cli-error.js';
import { formatTable } from './format-table.js';
import { withCliStore } from './open-cli-store.js';
import { parseJobId } from './parse-arguments.js';
import { printJson, printLine } from './print.js';

const time = (date: Date | null): string => date?.toISOString() ?? '-';
const json = (value: unknown): string => (value === null ? '-' : JSON.stringify(value));

/** A job as `field  value` lines, then its attempt errors oldest first. */
export function describeJob(job: Job): string {
  const fields: Array<[string, string]> = [
    ['id', String(job.id)],
    ['kind', job.kind],
    ['queue', job.queue],
    ['status', job.status],
    ['attempts', `${job.attempts} of ${job.maxAttempts}`],
    ['priority', String(job.priority)],
    ['run at', time(job.runAt)],
    ['created', time(job.createdAt)],
    ['started', time(job.startedAt)],
    ['finished', time(job.finishedAt)],
    ['claimed by', job.claimedBy ?? '-'],
    ['idempotency key', job.idempotencyKey ?? '-'],
    // Shown for jobs that have them only: most jobs have neither.
    ...(job.throttleKey === null ? [] : [['throttle key', job.throttleKey] as [string, string]]),
    ...(job.debounceKey === null ? [] : [['debounce key', job.debounceKey] as [string, string]]),
    ['progress', json(job.progress)],
    ['payload', json(job.payload)],
    ['result', json(job.result)],
    ['last error', job.lastError ?? '-'],
  ];
  const lines = [formatTable(['FIELD', 'VALUE'], fields).split('\n').slice(1).join('\n')];
  if (job.errors.length > 0) {
    lines.push(
      '',
      formatTable(
        ['ATTEMPT', 'AT', 'INSTANCE', 'ERROR'],
        job.errors.map((e) => [String(e.attempt), e.at.toISOString(), e.instance ?? '-', e.error]),
        new Set([0]),
      ),
    );
  }
  return lines.join('\n');
}

/** `nudge status <id> [--json]`: one job; `--json` prints it as `GET /jobs/:id` answers. */
export function statusCommand(program: Command): void {
  program
    .command('status')
    .description('show one job')
    .argument('<id>', 'the job id', parseJobId)
    .option('--json', 'print the job as GET /jobs/:id answers it')
    .action(async (id: number, options: { json?: boolean }) => {
      await withCliStore(async ({ store }) => {
        const job = await store.getJob(id);
        if (!job) throw new CliError(`no job has id ${id}: check the id (nudge list shows the newest)`);
        if (options.json) printJson(toJobView(job));
        else printLine(describeJob(job));
      });
    });
}
