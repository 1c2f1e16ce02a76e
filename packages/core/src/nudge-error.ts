import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/**
 * Base class of every error nudge raises on purpose. `code` is stable and machine-readable;
 * `message` says what to fix; `statusCode` comes from {@link ERROR_CODES}.
 */
export class NudgeError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NudgeError';
    this.code = code;
    this.statusCode = ERROR_CODES[code].status;
  }
}
