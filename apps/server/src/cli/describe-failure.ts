import { NudgeError } from '@nudge/core';
import { CliError } from './cli-error.js';

/** System error codes of a database that cannot be reached, and how to say them. */
const UNREACHABLE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ECONNRESET: 'connection reset',
  // PostgreSQL: invalid password, no such role, no such database.
  '28P01': 'password authentication failed',
  '28000': 'authentication refused',
  '3D000': 'no such database',
  SQLITE_CANTOPEN: 'cannot open the file',
  EACCES: 'permission denied',
};

/** `url` with the password of a `postgres://` URL hidden. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

/** The code of `error`, or of the first error of an `AggregateError` (a dual-stack connect). */
function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors } = error as { code?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors)) return codeOf(errors[0]);
  return undefined;
}

/**
 * The one line (without `nudge: `) the CLI prints for `error`: a {@link CliError}'s message; a
 * `NudgeError` with its code; a database that cannot be reached as `cannot reach the database at
 * <url, password hidden>: <reason>; check DATABASE_URL`; anything else as its message.
 */
export function describeFailure(error: unknown, databaseUrl?: string): string {
  let text: string;
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof CliError) text = error.message;
  else if (error instanceof NudgeError) text = `${error.code}: ${error.message}`;
  else if (
    databaseUrl !== undefined &&
    ((code !== undefined && code in UNREACHABLE) ||
      /timeout.*connect|connect.*timeout|Connection terminated/i.test(message))
  ) {
    const reason = (code !== undefined && UNREACHABLE[code]) || message || code || 'no answer';
    text = `cannot reach the database at ${redactUrl(databaseUrl)}: ${reason}; check DATABASE_URL`;
  } else text = message || code || 'failed';
  return text.replace(/\s*\n\s*/g, ' ');
}
