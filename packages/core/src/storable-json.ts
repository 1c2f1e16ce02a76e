/**
 * Deepest nesting of arrays and objects a payload or a result may have: deep enough for any real
 * document, shallow enough that serialising and storing it can never exhaust a stack (PostgreSQL's
 * `jsonb` input and `JSON.stringify` both recurse).
 */
export const MAX_JSON_DEPTH = 100;

/** Why a value cannot be stored as a job's payload or result, and where. */
export interface UnstorableJson {
  /** `too-deep`: nested beyond {@link MAX_JSON_DEPTH}; `unstorable`: a value no dialect keeps as sent. */
  readonly problem: 'too-deep' | 'unstorable';
  /** JSON Pointer (RFC 6901) of the offending value, `''` for the value itself. */
  readonly path: string;
  /** What is wrong, e.g. `a string contains U+0000, which PostgreSQL cannot store`. */
  readonly reason: string;
}

// U+0000, or a UTF-16 surrogate without its partner: jsonb refuses both, SQLite would keep them,
// so the dialects would disagree.
// No `u` flag: with it, a surrogate class never matches half of a pair.
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this looks for
const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What, if anything, in `text` no dialect can store as sent: U+0000, or a lone UTF-16 surrogate.
 * @returns the reason, or `undefined` when the text is storable
 */
export function unstorableText(text: string): string | undefined {
  const match = BAD_TEXT.exec(text);
  if (!match) return undefined;
  return match[0] === '\u0000'
    ? 'contains U+0000, which PostgreSQL cannot store'
    : `contains a lone UTF-16 surrogate (\\u${match[0].charCodeAt(0).toString(16)}), which is not valid Unicode`;
}

function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * Finds the first part of `value` that nudge cannot store identically on SQLite and PostgreSQL:
 * nesting deeper than `maxDepth`, a string or key holding U+0000 or a lone surrogate, a number
 * that is not finite (JSON has no `Infinity`; `JSON.parse('1e999')` gives one), or anything that
 * is not JSON (`undefined`, a function, a `bigint`, a symbol). Walks without recursion, so any
 * depth is safe to check.
 *
 * @param value - a payload or a result, as parsed from JSON or returned by a handler
 * @param maxDepth - deepest nesting allowed; `0` allows only scalars @defaultValue {@link MAX_JSON_DEPTH}
 * @returns the first problem found, or `undefined` when the value is storable
 */
export function findUnstorableJson(value: unknown, maxDepth = MAX_JSON_DEPTH): UnstorableJson | undefined {
  // Each entry keeps its parent and key; a pointer is spelt out only for the value at fault, so a
  // storable payload costs no string per value.
  const stack: Step[] = [{ value, key: '', parent: undefined, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { depth } = item;
    const current = item.value;
    if (current === null || typeof current === 'boolean') continue;
    if (typeof current === 'string') {
      const reason = unstorableText(current);
      if (reason) return { problem: 'unstorable', path: pathOf(item), reason: `a string ${reason}` };
      continue;
    }
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) {
        return {
          problem: 'unstorable',
          path: pathOf(item),
          reason: `${String(current)} is not a finite number`,
        };
      }
      continue;
    }
    if (typeof current !== 'object') {
      return { problem: 'unstorable', path: pathOf(item), reason: `a ${typeof current} is not JSON` };
    }
    if (depth >= maxDepth) {
      return { problem: 'too-deep', path: pathOf(item), reason: `nesting deeper than ${maxDepth} levels` };
    }
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i -= 1) {
        stack.push({ value: current[i], key: i, parent: item, depth: depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(current);
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const key = keys[i] as string;
      const reason = unstorableText(key);
      if (reason)
        return { problem: 'unstorable', path: pointer(pathOf(item), key), reason: `a key ${reason}` };
      stack.push({ value: (current as Record<string, unknown>)[key], key, parent: item, depth: depth + 1 });
    }
  }
  return undefined;
}

/** A value met while walking a payload: where it sits, as its parent and its key there. */
interface Step {
  readonly value: unknown;
  readonly key: string | number;
  /** `undefined` for the payload itself. */
  readonly parent: Step | undefined;
  readonly depth: number;
}

/** The JSON Pointer of `step`'s value. */
function pathOf(step: Step): string {
  const keys: Array<string | number> = [];
  for (let at: Step | undefined = step; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  return keys.reduceRight<string>((path, key) => pointer(path, key), '');
}

/**
 * Replaces what {@link unstorableText} refuses with U+FFFD, for text nudge writes itself (error
 * messages), which must be stored whatever a handler threw.
 */
export function toStorableText(text: string): string {
  return unstorableText(text) === undefined ? text : text.replace(new RegExp(BAD_TEXT.source, 'g'), '\ufffd');
}

/** Longest error message stored for an attempt, in characters; longer ones are cut. */
export const MAX_ERROR_CHARS = 8192;

/**
 * An error message as nudge stores it: unstorable characters replaced (see {@link toStorableText})
 * and cut to {@link MAX_ERROR_CHARS} characters with a note saying so.
 */
export function toStorableError(message: string): string {
  const text = toStorableText(message);
  if (text.length <= MAX_ERROR_CHARS) return text;
  const note = ` … (cut from ${text.length} characters)`;
  return toStorableText(text.slice(0, MAX_ERROR_CHARS - note.length)) + note;
}

// In text from JSON.stringify, U+0000 and lone surrogates always appear as `\u` escapes (paired
// surrogates never do); an even run of backslashes before one is escaped text, not an escape.
const BAD_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

/**
 * {@link findUnstorableJson} for JSON text as `JSON.stringify` writes it (a handler's result):
 * nesting deeper than `maxDepth`, or an escaped U+0000 or lone surrogate. `JSON.stringify` has
 * already turned non-finite numbers into `null`. Scans once, without parsing.
 *
 * @returns the problem (with `path` `''`: text has no pointer), or `undefined` when storable
 */
export function findUnstorableJsonText(text: string, maxDepth = MAX_JSON_DEPTH): UnstorableJson | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > maxDepth) {
        return { problem: 'too-deep', path: '', reason: `nesting deeper than ${maxDepth} levels` };
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth -= 1;
    }
  }
  const escape = BAD_ESCAPE.exec(text);
  if (!escape) return undefined;
  const lone = !escape[0].endsWith('0000');
  return {
    problem: 'unstorable',
    path: '',
    reason: lone
      ? `a string contains a lone UTF-16 surrogate (${escape[0].slice(-6)}), which is not valid Unicode`
      : 'a string contains U+0000, which PostgreSQL cannot store',
  };
}
