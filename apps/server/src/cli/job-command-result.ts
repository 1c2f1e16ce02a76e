import type { JobCommandResult } from '@nudge/store';
import { CliError } from './cli-error.js';

/**
 * The line `nudge retry` and `nudge cancel` print for a change.
 * @throws CliError for an unknown id, or a job in a status the command does not apply to
 */
export function describeCommandResult(
  id: number,
  result: JobCommandResult,
  command: { done: string; appliesTo: string; note: string },
): string {
  switch (result.outcome) {
    case 'not-found':
      throw new CliError(`no job has id ${id}: check the id (nudge list shows the newest)`);
    case 'conflict':
      throw new CliError(
        `job ${id} is ${result.job.status}: only ${command.appliesTo} jobs can be ${command.done}`,
      );
    case 'blocked': {
      const { id: dependency, status } = result.dependency;
      throw new CliError(
        `job ${id} cancels on a failed dependency and its dependency ${dependency} ${status === null ? 'no longer exists' : `ended ${status}`}: retry job ${dependency} first`,
      );
    }
    case 'changed':
      return `job ${id} ${command.done} (was ${result.previous}, now ${result.job.status})${command.note}`;
  }
}
