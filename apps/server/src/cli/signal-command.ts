import { InvalidArgumentError, type Command } from 'commander';
import { NudgeError } from '@nudge/core';
import { CliError } from './cli-error.js';
import { withCliStore } from './open-cli-store.js';
import { parseJobId } from './parse-arguments.js';
import { printJson, printLine } from './print.js';

interface SignalOptions {
  payload?: string;
  signalId?: string;
  json?: boolean;
}

/** A `--payload` argument: JSON text, kept as given. @throws InvalidArgumentError saying how to quote it */
function parsePayload(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(
      `must be JSON (${(error as Error).message}): quote it, such as '{"approved": true}'`,
    );
  }
  return text;
}

/**
 * `nudge signal <id> <name> [--payload JSON] [--signal-id ID] [--json]`: sends the signal `name`
 * to a job (see `Store.sendSignal`), as `POST /jobs/:id/signals` does. A job `WAITING` for it in
 * `ctx.waitForSignal` becomes `PENDING` in the same transaction, and a running service claims it
 * at once when it listens (PostgreSQL `LISTEN`, or the SQLite file's change counter), else within
 * one poll interval. With `--signal-id`, sending again stores nothing and says so.
 *
 * Fails (exit 1, one line) for an unknown job, a finished one, or a bad name, id or payload.
 */
export function signalCommand(program: Command): void {
  program
    .command('signal')
    .description('send a signal to a job: a job waiting for it in ctx.waitForSignal runs again at once')
    .argument('<id>', 'the job id', parseJobId)
    .argument('<name>', 'the signal name the handler waits for (1 to 200 characters)')
    .option('--payload <json>', 'what the wait returns, as JSON (default null)', parsePayload)
    .option(
      '--signal-id <id>',
      'your id for this signal: sending it again stores nothing (1 to 200 characters)',
    )
    .option('--json', 'print the signal as POST /jobs/:id/signals answers it, with "created"')
    .action(async (id: number, name: string, options: SignalOptions) => {
      await withCliStore(async ({ store }) => {
        let sent;
        try {
          sent = await store.sendSignal({
            jobId: id,
            name,
            payloadJson: options.payload ?? null,
            ...(options.signalId === undefined ? {} : { signalId: options.signalId }),
          });
        } catch (error) {
          throw refusal(error, id) ?? error;
        }
        const { signal, created } = sent;
        if (options.json) {
          return printJson({ ...signal, createdAt: signal.createdAt.toISOString(), created });
        }
        printLine(
          created
            ? `signal ${JSON.stringify(signal.name)} sent to job ${id} (signal ${signal.id})`
            : `signal ${JSON.stringify(signal.signalId)} was already sent to job ${id} (signal ${signal.id}): nothing sent`,
        );
      });
    });
}

/** The CLI's line for a job the signal cannot reach; `undefined` for any other error. */
function refusal(error: unknown, id: number): CliError | undefined {
  if (!(error instanceof NudgeError)) return undefined;
  if (error.code === 'JOB_NOT_FOUND')
    return new CliError(`no job has id ${id}: check the id (nudge list shows the newest)`);
  if (error.code === 'JOB_STATE_CONFLICT')
    return new CliError(`job ${id} has finished: a signal reaches only a job that has not finished`);
  return undefined;
}
