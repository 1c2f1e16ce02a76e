import { Command } from 'commander';
import { NUDGE_VERSION } from '../nudge-version.js';
import { COMMANDS } from './commands.js';

/**
 * The `nudge` program with every command of {@link COMMANDS}. Errors commander finds in the
 * arguments (an unknown option, a missing or invalid argument) are written as one line,
 * `nudge: <problem> (see nudge --help)`; the caller decides the exit (see main.ts).
 */
export function createProgram(): Command {
  const program = new Command('nudge')
    .description(
      'Operate a nudge job queue from the shell: talks to the database (DATABASE_URL) directly, no service needed.',
    )
    .version(NUDGE_VERSION, '-V, --version', 'print the nudge version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => {
        const problem = text
          .trim()
          .replace(/^error: /, '')
          .replace(/\s*\n\s*/g, ' ')
          // "command-argument value 'x' is invalid for argument 'id'. must be …" → "<id> must be …"
          .replace(/^command-argument value .* is invalid for argument '([^']*)'\. /, '<$1> ')
          // "option '--limit <n>' argument 'x' is invalid. must be …" → "--limit must be …"
          .replace(/^option '(-[^' ]*)[^']*' argument .* is invalid\. /, '$1 ');
        write(`nudge: ${problem} (see nudge --help)\n`);
      },
    });
  for (const register of COMMANDS) register(program);
  return program;
}
