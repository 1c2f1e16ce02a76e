import type { Command } from 'commander';

/**
 * Adds one command to the `nudge` program; each command file exports one. Add it with
 * `program.command(…)` so that it inherits the program's error output.
 */
export type RegisterCommand = (program: Command) => void;
