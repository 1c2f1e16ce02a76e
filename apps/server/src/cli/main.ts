#!/usr/bin/env node
// The `nudge` command line: `nudge --help`. Exit codes: 0 done; 1 failed (one line on stderr,
// `nudge: …`, saying what to fix); 2 bad arguments (also one line).
import module from 'node:module';

// Node.js 22.1 and newer keep the compiled code of the modules a command loads on disk, so the
// next command starts sooner; Node.js 20 has no such cache.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { CommanderError } = await import('commander');
const { describeFailure } = await import('./describe-failure.js');
const { createProgram } = await import('./create-program.js');
const { terminalSafe } = await import('./terminal-text.js');

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander has written its one line (or the help or version) already.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    process.stderr.write(`nudge: ${terminalSafe(describeFailure(error))}\n`);
    process.exitCode = 1;
  }
}
