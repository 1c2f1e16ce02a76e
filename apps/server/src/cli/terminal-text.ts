/**
 * Characters a terminal acts on instead of showing: C0 controls (line feed, carriage return,
 * escape, which starts colour and cursor sequences), DEL, C1 controls, and the Unicode marks that
 * reorder the text shown (bidirectional embeddings, overrides and isolates).
 */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` safe to print as part of one line: each character a terminal would act on is written
 * as an escape (`\n`, `\r`, `\t`, else `\u001b`-style), so a value read from the database or the
 * API can neither start a line that looks like the command's own nor move the cursor or recolour
 * the screen. Other text, backslashes included, is unchanged.
 */
export function terminalSafe(text: string): string {
  return text.replace(ACTIVE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
