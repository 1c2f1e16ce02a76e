/**
 * A failure the CLI reports as one line on stderr, `nudge: <message>`, exiting with `exitCode`.
 * The message says what went wrong and what to fix.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  /** The process exit code. @defaultValue 1 */
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}
