import { NudgeError } from '@nudge/core';
import { resolveSchedules, type ResolvedSchedule } from './cron-schedule.js';

/**
 * The handler module's schedules, then the configured ones, checked against the module's kinds.
 * @throws NudgeError `HANDLERS_INVALID` for a bad module schedule
 * @throws NudgeError with `option: 'schedules'` for a bad configured one (a message starting
 *   `schedules: `): the job contract's code for a bad job field, else `INVALID_CONFIG`, as for a
 *   name the handler module declares too
 */
export function checkSchedules(
  fromModule: unknown,
  configured: readonly unknown[],
  kinds: ReadonlySet<string>,
): ResolvedSchedule[] {
  let schedules: ResolvedSchedule[] = [];
  try {
    if (fromModule !== undefined) schedules = resolveSchedules(fromModule, 'the handler module', kinds);
  } catch (error) {
    throw new NudgeError('HANDLERS_INVALID', (error as Error).message, { cause: error });
  }
  let all: ResolvedSchedule[];
  try {
    all = [...schedules, ...resolveSchedules(configured, 'schedules', kinds)];
  } catch (error) {
    const code = error instanceof NudgeError ? error.code : 'INVALID_CONFIG';
    throw new NudgeError(code, (error as Error).message, { cause: error, option: 'schedules' });
  }
  const names = new Set<string>();
  for (const { name } of all) {
    if (names.has(name))
      throw new NudgeError(
        'INVALID_CONFIG',
        `schedules: schedule "${name}" is declared in the handler module too; rename one of them`,
        { option: 'schedules' },
      );
    names.add(name);
  }
  return all;
}
