/** One sample of a scrape: metric name, labels and value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A parsed scrape: its samples, and the `# TYPE` of each metric family. */
export interface Scrape {
  readonly samples: readonly Sample[];
  readonly types: ReadonlyMap<string, string>;
  /**
   * The sum of the values of `name` over the samples whose labels include `labels`
   * (0 when none matches).
   */
  sum(name: string, labels?: Readonly<Record<string, string>>): number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * Parses Prometheus' text exposition format (version 0.0.4) strictly: a line that is neither a
 * comment nor a sample throws, so a malformed scrape fails the test that reads it.
 */
export function parsePrometheusText(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1] as string, type[2] as string);
      else if (!line.startsWith('# HELP ')) throw new Error(`not a Prometheus comment: ${line}`);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) {
      labels[key as string] = (value as string).replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    }
    const raw = match[3] as string;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    if (Number.isNaN(value) && raw !== 'NaN') throw new Error(`not a number in: ${line}`);
    samples.push({ name: match[1] as string, labels, value });
  }
  return {
    samples,
    types,
    sum: (name, labels = {}) =>
      samples
        .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((total, s) => total + s.value, 0),
  };
}
