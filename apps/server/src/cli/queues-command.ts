import { InvalidArgumentError, type Command } from 'commander';
import { QUEUE_CONCURRENCY_RANGE, parseRate } from '@nudge/core';
import { toQueueView, type QueueView } from '@nudge/http/views';
import type { QueueLimitsPatch, QueueRateLimit } from '@nudge/store';
import { CliError } from './cli-error.js';
import { formatTable } from './format-table.js';
import { withCliStore } from './open-cli-store.js';
import { parseQueue, wholeNumber } from './parse-arguments.js';
import { printJson, printLine } from './print.js';

/**
 * `none` removes a limit; otherwise `parse` reads it. Kept as the text `none` until the action
 * (commander turns a parser's `null` into an empty string). @returns the parser commander calls
 */
function limitOrNone<T>(parse: (text: string) => T): (text: string) => T | 'none' {
  return (text) => (text === 'none' ? 'none' : parse(text));
}

/** An option's value as a patch field: absent, `null` for `none`, or the limit. */
const patchValue = <T>(value: T | 'none' | undefined): T | null | undefined =>
  value === 'none' ? null : value;

const concurrency = limitOrNone(
  wholeNumber(QUEUE_CONCURRENCY_RANGE.minimum, QUEUE_CONCURRENCY_RANGE.maximum),
);

const rate = limitOrNone((text): QueueRateLimit => {
  try {
    return parseRate(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
});

const describeRate = (limit: QueueView['rateLimit']): string =>
  limit === null ? '-' : `${limit.limit}/${limit.intervalMs}ms`;

function printQueues(queues: readonly QueueView[]): void {
  printLine(
    formatTable(
      ['QUEUE', 'PAUSED', 'CONCURRENCY', 'RATE', 'PER KEY', 'WAITING', 'SCHEDULED', 'PENDING', 'RUNNING'],
      queues.map((q) => [
        q.name,
        q.paused ? 'yes' : 'no',
        q.concurrency === null ? '-' : String(q.concurrency),
        describeRate(q.rateLimit),
        q.keyConcurrency === null ? '-' : String(q.keyConcurrency),
        String(q.waiting),
        String(q.scheduled),
        String(q.pending),
        String(q.running),
      ]),
    ),
  );
}

interface SetOptions {
  concurrency?: number | 'none';
  rate?: QueueRateLimit | 'none';
  keyConcurrency?: number | 'none';
  json?: boolean;
}

/**
 * `nudge queues [--json]`: every queue with its pause, its cluster-wide limits and its unfinished
 * jobs, as `GET /queues` lists them. `nudge queues set <name> [--concurrency n] [--rate 100/1s]
 * [--key-concurrency n]` sets limits as `PATCH /queues/:name` does (`none` removes one).
 */
export function queuesCommand(program: Command): void {
  const queues = program
    .command('queues')
    .description('list the queues with their limits and jobs, or set their limits')
    .option('--json', 'print {"queues": […]} as GET /queues answers')
    .action(async (options: { json?: boolean }) => {
      await withCliStore(async ({ store }) => {
        const views = (await store.listQueues()).map(toQueueView);
        if (options.json) return printJson({ queues: views });
        if (views.length === 0) return printLine('no queues: none has unfinished jobs, a pause or limits');
        printQueues(views);
      });
    });
  queues
    .command('set')
    .description("set a queue's cluster-wide limits (none removes one), as PATCH /queues/:name")
    .argument('<name>', 'the queue', parseQueue)
    .option(
      '--concurrency <n>',
      'most jobs of the queue running at once across all instances, or none',
      concurrency,
    )
    .option(
      '--rate <limit/interval>',
      'most jobs started in any window, such as 100/1s or 5/250ms, or none',
      rate,
    )
    .option(
      '--key-concurrency <n>',
      'most jobs with one concurrencyKey running at once, or none',
      concurrency,
    )
    .option('--json', 'print the queue as PATCH /queues/:name answers')
    .action(async (name: string, options: SetOptions) => {
      const patch: QueueLimitsPatch = {
        ...(options.concurrency === undefined ? {} : { concurrency: patchValue(options.concurrency) }),
        ...(options.rate === undefined ? {} : { rateLimit: patchValue(options.rate) }),
        ...(options.keyConcurrency === undefined
          ? {}
          : { keyConcurrency: patchValue(options.keyConcurrency) }),
      };
      if (Object.keys(patch).length === 0)
        throw new CliError('queues set needs at least one of --concurrency, --rate, --key-concurrency');
      await withCliStore(async ({ store }) => {
        const view = toQueueView(await store.setQueueLimits(name, patch));
        // `--json` after `set` may be read as the parent's own option.
        if (options.json === true || queues.opts<{ json?: boolean }>().json === true) return printJson(view);
        printQueues([view]);
      });
    });
}
