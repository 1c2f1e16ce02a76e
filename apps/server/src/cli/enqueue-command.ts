import { terminalSafe } from './terminal-text.js';
import { accessSync, constants } from 'node:fs';
import type { Command } from 'commander';
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_PRIORITY,
  DEFAULT_QUEUE,
  MAX_ATTEMPTS_RANGE,
  PRIORITY_RANGE,
} from '@nudge/core';
import { validateJobBody } from '@nudge/http/views';
import { CliError } from './cli-error.js';
import { existingJobLine, parseDedupeFlag } from './dedupe-flags.js';
import { describeFailure } from './describe-failure.js';
import { enqueueLines, ENQUEUE_BATCH_SIZE } from './enqueue-lines.js';
import { withCliStore } from './open-cli-store.js';
import { plural, printLine } from './print.js';

interface EnqueueOptions {
  file?: string;
  queue?: string;
  priority?: string;
  delayMs?: string;
  runAt?: string;
  maxAttempts?: string;
  idempotencyKey?: string;
  throttle?: string;
  debounce?: string;
  progress: boolean;
}

/** `"12"` as 12 and anything else as it is, for the job schema to judge. */
const numberOrText = (text: string | undefined): number | string | undefined =>
  text !== undefined && /^-?\d+$/.test(text) ? Number(text) : text;

/** `--throttle` or `--debounce` as its job option (`{ key, windowMs }` or `{ key, delayMs }`). */
function dedupeOption(
  flag: '--throttle' | '--debounce',
  msField: 'windowMs' | 'delayMs',
  text: string | undefined,
): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  const { key, ms } = parseDedupeFlag(flag, text);
  return { key, [msField]: ms };
}

/** The body of `POST /jobs` the arguments of a single enqueue describe. */
function jobBody(
  kind: string,
  payloadJson: string | undefined,
  options: EnqueueOptions,
): Record<string, unknown> {
  let payload: unknown;
  if (payloadJson !== undefined) {
    try {
      payload = JSON.parse(payloadJson);
    } catch (error) {
      throw new CliError(
        `the payload is not valid JSON (${(error as Error).message}): quote it, such as '{"to": "a@b.c"}'`,
      );
    }
  }
  const fields: Record<string, unknown> = {
    kind,
    payload,
    queue: options.queue,
    priority: numberOrText(options.priority),
    delayMs: numberOrText(options.delayMs),
    runAt: options.runAt,
    maxAttempts: numberOrText(options.maxAttempts),
    idempotencyKey: options.idempotencyKey,
    throttle: dedupeOption('--throttle', 'windowMs', options.throttle),
    debounce: dedupeOption('--debounce', 'delayMs', options.debounce),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * `nudge enqueue <kind> [payload-json] [--queue --priority --delay-ms --run-at --max-attempts
 * --idempotency-key --throttle KEY/WINDOW_MS --debounce KEY/DELAY_MS]`: one job, checked by the
 * rules of `POST /jobs`.
 * `nudge enqueue --file jobs.ndjson` (`-` for stdin): many, see {@link enqueueLines}.
 */
export function enqueueCommand(program: Command): void {
  program
    .command('enqueue')
    .description('enqueue one job, or many from an NDJSON file or stdin (--file)')
    .argument('[kind]', 'the job kind (a single job)')
    .argument('[payload-json]', 'the payload as JSON (default {})')
    .option('--queue <name>', `the queue it waits in (default: ${DEFAULT_QUEUE})`)
    .option(
      '--priority <n>',
      `lower runs first, ${PRIORITY_RANGE.minimum} to ${PRIORITY_RANGE.maximum} (default ${DEFAULT_PRIORITY})`,
    )
    .option('--delay-ms <ms>', 'start no earlier than this many ms from now (database clock)')
    .option('--run-at <iso>', 'start no earlier than this time, such as 2030-01-01T09:00:00Z')
    .option(
      '--max-attempts <n>',
      `attempts before it is FAILED, ${MAX_ATTEMPTS_RANGE.minimum} to ${MAX_ATTEMPTS_RANGE.maximum} (default ${DEFAULT_MAX_ATTEMPTS})`,
    )
    .option('--idempotency-key <key>', 'enqueue nothing when a job of this kind has this key')
    .option(
      '--throttle <key/windowMs>',
      'at most one job of this kind and key per window of windowMs ms (from its creation); in the window, enqueue nothing',
    )
    .option(
      '--debounce <key/delayMs>',
      'one job of this kind and key waits; while it waits, replace its payload and move its start to delayMs ms from now',
    )
    .option(
      '--file <path>',
      `one job per line (the body of POST /jobs), written in batches of ${ENQUEUE_BATCH_SIZE}; - reads stdin`,
    )
    .option('--no-progress', 'no progress bar (there is none unless stderr is a terminal)')
    .action(async (kind: string | undefined, payloadJson: string | undefined, options: EnqueueOptions) => {
      if (options.file !== undefined) {
        if (kind !== undefined) throw new CliError('give either a kind (one job) or --file (many), not both');
        const path = options.file;
        if (path !== '-') {
          try {
            accessSync(path, constants.R_OK);
          } catch (error) {
            throw new CliError(`cannot read ${path}: ${describeFailure(error)}; check the --file path`);
          }
        }
        await withCliStore(async ({ store }) => {
          const result = await enqueueLines(store, path, options.progress && process.stderr.isTTY === true);
          printLine(
            `enqueued ${plural(result.jobs, 'job')} (${result.created} new, ${result.jobs - result.created} existed) from ${plural(result.lines, 'line')} in ${plural(result.batches, 'batch', 'batches')}`,
          );
        });
        return;
      }
      if (kind === undefined)
        throw new CliError('give the job kind (nudge enqueue KIND [PAYLOAD-JSON]) or --file PATH');
      const input = validateJobBody(jobBody(kind, payloadJson, options));
      await withCliStore(async ({ store }) => {
        const job = await store.enqueue(input);
        printLine(
          job.created
            ? `enqueued job ${job.id} (${terminalSafe(job.kind)}, queue ${terminalSafe(job.queue)}, ${job.status})`
            : existingJobLine(job),
        );
      });
    });
}
