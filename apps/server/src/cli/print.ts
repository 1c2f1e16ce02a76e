/** Writes `value` as JSON (two-space indented) and a newline to stdout: every `--json` output. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Writes `text` and a newline to stdout. */
export function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** A duration in ms for people: `850 ms`, `12.3 s`, `4 min 5 s`, `2 h 3 min`, `3 d 4 h`. */
export function formatDurationMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** `count` and the noun, plural unless 1: `1 batch`, `3 batches`, `0 jobs`. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
