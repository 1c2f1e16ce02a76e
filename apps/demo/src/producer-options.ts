import { parseArgs } from 'node:util';
import {
  DATASET_NAMES,
  DEFAULT_DATASET,
  FLIGHTS_3M,
  isDatasetName,
  type DatasetName,
} from './dataset-files.js';

/** How the producer runs; {@link readProducerOptions} fills in every default. */
export interface ProducerOptions {
  /** Database the jobs are inserted into. @defaultValue `sqlite:./data/nudge.db` */
  readonly databaseUrl: string;
  /** Base URL of the nudge server. @defaultValue `http://127.0.0.1:3000` */
  readonly nudgeUrl: string;
  /**
   * Flights dataset: a JSON one (one report job per busy origin), or `flights-3m` (one part job
   * per parquet row group, then one merge job). @defaultValue `flights-20k`
   */
  readonly dataset: DatasetName | typeof FLIGHTS_3M;
  /**
   * How many of the busiest origin airports get a report of their own; with `flights-3m`, how
   * many of them the findings compare. @defaultValue 25
   */
  readonly origins: number;
  /** Folder the archives are written to (by the server); `undefined` keeps the handler's default. */
  readonly outputDir: string | undefined;
  /** Pause between polls of the job states, in ms. @defaultValue 50 */
  readonly pollIntervalMs: number;
  /** Longest wait for all jobs, in ms. @defaultValue 120000 */
  readonly timeoutMs: number;
}

/** The producer's usage line, printed with `--help` and on a bad option. */
export const PRODUCER_USAGE = `usage: node apps/demo/dist/producer.js [--database-url URL] [--nudge-url URL]
       [--dataset ${[...DATASET_NAMES, FLIGHTS_3M].join('|')}] [--origins N] [--output-dir DIR]
       [--poll-interval-ms MS] [--timeout-ms MS]
env: DATABASE_URL, NUDGE_URL, NUDGE_DEMO_DATASET, NUDGE_DEMO_OUTPUT_DIR (options win over env)`;

function wholeNumber(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`--${name} must be a whole number of at least ${min} (got "${text}")`);
  }
  return value;
}

/**
 * Reads the producer's options from its arguments and environment (the one place it reads them).
 *
 * @throws Error naming the option at fault
 */
export function readProducerOptions(args: readonly string[], env: NodeJS.ProcessEnv): ProducerOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      'database-url': { type: 'string' },
      'nudge-url': { type: 'string' },
      dataset: { type: 'string' },
      origins: { type: 'string' },
      'output-dir': { type: 'string' },
      'poll-interval-ms': { type: 'string' },
      'timeout-ms': { type: 'string' },
    },
    strict: true,
  });
  const dataset = values.dataset ?? env.NUDGE_DEMO_DATASET ?? DEFAULT_DATASET;
  if (!isDatasetName(dataset) && dataset !== FLIGHTS_3M) {
    const names = [...DATASET_NAMES, FLIGHTS_3M].join(', ');
    throw new Error(`--dataset must be one of ${names} (got "${dataset}")`);
  }
  const nudgeUrl = values['nudge-url'] ?? env.NUDGE_URL ?? 'http://127.0.0.1:3000';
  if (!URL.canParse(nudgeUrl))
    throw new Error(`--nudge-url must be a URL like http://127.0.0.1:3000 (got "${nudgeUrl}")`);
  return {
    databaseUrl: values['database-url'] ?? env.DATABASE_URL ?? 'sqlite:./data/nudge.db',
    nudgeUrl,
    dataset,
    origins: wholeNumber('origins', values.origins, 25, 1),
    outputDir: values['output-dir'] ?? env.NUDGE_DEMO_OUTPUT_DIR,
    pollIntervalMs: wholeNumber('poll-interval-ms', values['poll-interval-ms'], 50, 1),
    timeoutMs: wholeNumber('timeout-ms', values['timeout-ms'], 120_000, 1),
  };
}
