import { findUnstorableJsonText, toStorableText } from './storable-json.js';

/** The levels of `ctx.log`, lowest first. */
export const JOB_LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A level of `ctx.log`: `debug`, `info`, `warn` or `error`. */
export type JobLogLevel = (typeof JOB_LOG_LEVELS)[number];

/**
 * Most bytes one stored log line takes (its message and its fields' JSON, in UTF-8): 8 KiB. A
 * longer line is cut by {@link fitJobLogLine}, never dropped for its size alone.
 */
export const MAX_JOB_LOG_LINE_BYTES = 8192;

/** One line of a job's log as stored: its message, and its fields as JSON text of an object or `null`. */
export interface JobLogLine {
  readonly level: JobLogLevel;
  readonly message: string;
  /** JSON text of a plain object, or `null` without fields. */
  readonly fieldsJson: string | null;
}

/** The bytes a line counts against a job's byte cap: its message and its fields' JSON, in UTF-8. */
export function jobLogLineBytes(line: Pick<JobLogLine, 'message' | 'fieldsJson'>): number {
  return (
    Buffer.byteLength(line.message, 'utf8') +
    (line.fieldsJson === null ? 0 : Buffer.byteLength(line.fieldsJson, 'utf8'))
  );
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes, never inside a character. */
function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // A continuation byte (10xxxxxx) starts no character: step back to the start of one.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * The text of a `ctx.log` message: a string as given, anything else through `String()`, and a
 * fixed note for a value `String()` throws on; never throws.
 */
export function jobLogMessageText(message: unknown): string {
  if (typeof message === 'string') return message;
  try {
    return String(message);
  } catch {
    // A value with no usable toString (Object.create(null), a toString that throws): the line is
    // kept, and the handler goes on, as with fields that are not JSON.
    return '[a message that cannot be made text]';
  }
}

/**
 * The JSON text of `fields` as a line stores it: `null` without fields; a note object
 * (`{"unstorable": "why"}`) when the value is not a plain object or cannot be stored as JSON alike
 * on both dialects (a cycle, a `bigint`, U+0000, nesting too deep). Never throws.
 */
export function jobLogFieldsJson(fields: unknown): string | null {
  if (fields === undefined || fields === null) return null;
  if (typeof fields !== 'object' || Array.isArray(fields)) {
    return JSON.stringify({ unstorable: 'fields must be a plain object' });
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(fields);
  } catch (error) {
    return JSON.stringify({
      unstorable: `fields are not JSON: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  if (text === undefined) return null;
  const problem = findUnstorableJsonText(text);
  return problem === undefined ? text : JSON.stringify({ unstorable: `fields ${problem.reason}` });
}

/**
 * A log line as it is stored: U+0000 and lone surrogates in the message replaced with U+FFFD, and a
 * line over {@link MAX_JOB_LOG_LINE_BYTES} cut to fit: its fields are left out (`null`) and its
 * message cut, ending with a note of the line's size (`… [cut: the line had N bytes]`).
 */
export function fitJobLogLine(level: JobLogLevel, message: string, fieldsJson: string | null): JobLogLine {
  const text = toStorableText(message);
  const line: JobLogLine = { level, message: text, fieldsJson };
  if (text.length * 3 + (fieldsJson?.length ?? 0) * 3 <= MAX_JOB_LOG_LINE_BYTES) return line;
  const bytes = jobLogLineBytes(line);
  if (bytes <= MAX_JOB_LOG_LINE_BYTES) return line;
  const note = ` … [cut: the line had ${bytes} bytes]`;
  return {
    level,
    message: cutUtf8(text, MAX_JOB_LOG_LINE_BYTES - Buffer.byteLength(note, 'utf8')) + note,
    fieldsJson: null,
  };
}
