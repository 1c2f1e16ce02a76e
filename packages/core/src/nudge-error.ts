import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/**
 * Base class of every error nudge raises on purpose. `code` is stable and machine-readable;
 * `message` says what to fix; `statusCode` comes from {@link ERROR_CODES}.
 */
export class NudgeError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  /**
   * The option of the raising library's API at fault, when one is (such as the engine's
   * `schedules`); the message then starts with `<option>: `. A caller that fills the option from a
   * setting of its own names that setting instead with {@link renameOption} (the server names the
   * environment variable it read), which keeps `option`. `undefined` when no option is at fault.
   */
  readonly option: string | undefined;

  /**
   * @param options.option - the option at fault; `message` must then start with `<option>: `
   */
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; option?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'NudgeError';
    this.code = code;
    this.statusCode = ERROR_CODES[code].status;
    this.option = options?.option;
  }
}

/**
 * `error` with its option called `name` instead: the same code and message, with the leading
 * `<option>: ` replaced by `<name>: `, and `error` as the cause. An error with no option, or whose
 * message does not start with it, comes back as it is.
 *
 * @example
 * ```ts
 * renameOption(error, 'NUDGE_SCHEDULES').message; // 'NUDGE_SCHEDULES: schedule "nightly": …'
 * ```
 */
export function renameOption(error: NudgeError, name: string): NudgeError {
  const prefix = `${error.option}: `;
  if (error.option === undefined || !error.message.startsWith(prefix)) return error;
  return new NudgeError(error.code, `${name}: ${error.message.slice(prefix.length)}`, {
    cause: error,
    option: error.option,
  });
}
