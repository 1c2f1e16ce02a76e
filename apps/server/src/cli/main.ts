#!/usr/bin/env node
// The `nudge` command line: `nudge --help`. Exit codes: 0 done; 1 failed (one line on stderr,
// `nudge: …`, saying what to fix); 2 bad arguments (also one line).
import { CommanderError } from 'commander';
import { describeFailure } from './describe-failure.js';
import { createProgram } from './create-program.js';

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander has written its one line (or the help or version) already.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    process.stderr.write(`nudge: ${describeFailure(error)}\n`);
    process.exitCode = 1;
  }
}
