import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { SingleBar } from 'cli-progress';
import type { EnqueueInput, Store } from '@nudge/store';
import { validateJobBody } from '@nudge/http/views';
import { CliError } from './cli-error.js';
import { describeFailure } from './describe-failure.js';
import { plural } from './print.js';

/** Jobs per `enqueueMany` call (one transaction each). */
export const ENQUEUE_BATCH_SIZE = 1000;

/** What {@link enqueueLines} wrote. */
export interface EnqueueLinesResult {
  /** Jobs written (created or found under their idempotency key). */
  readonly jobs: number;
  /** Jobs inserted by this run. */
  readonly created: number;
  /** Lines read, blank ones included. */
  readonly lines: number;
  /** Transactions committed. */
  readonly batches: number;
}

/**
 * Enqueues one job per line of an NDJSON file (`-`: stdin), each line the body of `POST /jobs`
 * (`{"kind": "…", "payload": …, "queue": …}`); blank lines are skipped. Lines are sent in
 * batches of {@link ENQUEUE_BATCH_SIZE} through `store.enqueueMany`, each batch one transaction.
 *
 * A line that is not valid JSON or not a valid job stops the run before its batch is written:
 * the batches before it are committed, nothing of its own batch is. The error names the line
 * and the first line not written, so the run can be resumed from there.
 *
 * With `progress`, a bar on stderr shows the bytes read (of a file) and the jobs written.
 *
 * @throws CliError `line N: <what is wrong>; …` for a bad line, or when a batch cannot be written
 */
export async function enqueueLines(
  store: Store,
  source: string,
  progress: boolean,
): Promise<EnqueueLinesResult> {
  const input = source === '-' ? process.stdin : createReadStream(source);
  const totalBytes = source === '-' ? 0 : statSync(source).size;
  const bar = progress
    ? new SingleBar({
        stream: process.stderr,
        format:
          totalBytes > 0
            ? 'enqueue [{bar}] {percentage}% | {jobs} jobs | line {line}'
            : 'enqueue {jobs} jobs | line {line}',
        hideCursor: true,
        clearOnComplete: true,
      })
    : undefined;
  bar?.start(totalBytes, 0, { jobs: 0, line: 0 });
  let batch: EnqueueInput[] = [];
  let batchFirstLine = 1;
  let line = 0;
  let bytes = 0;
  let jobs = 0;
  let created = 0;
  let batches = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    let written;
    try {
      written = await store.enqueueMany(batch);
    } catch (error) {
      throw new CliError(
        `lines ${batchFirstLine}-${line}: ${describeFailure(error)}; nothing of these lines was written${committed()}`,
      );
    }
    jobs += written.length;
    created += written.filter((job) => job.created).length;
    batches += 1;
    batch = [];
    bar?.update(bytes, { jobs, line });
  };
  const committed = () =>
    batches === 0
      ? ''
      : ` (lines 1-${batchFirstLine - 1} were: ${plural(jobs, 'job')} in ${plural(batches, 'batch', 'batches')})`;
  try {
    for await (const text of createInterface({ input, crlfDelay: Infinity })) {
      line += 1;
      bytes += Buffer.byteLength(text) + 1;
      if (batch.length === 0) batchFirstLine = line;
      if (text.trim() === '') continue;
      let job: EnqueueInput;
      try {
        job = validateJobBody(JSON.parse(text));
      } catch (error) {
        const what =
          error instanceof SyntaxError ? `not valid JSON (${error.message})` : describeFailure(error);
        throw new CliError(
          `line ${line}: ${what}; nothing of lines ${batchFirstLine}-${line} was written${committed()}`,
        );
      }
      batch.push(job);
      if (batch.length === ENQUEUE_BATCH_SIZE) {
        await flush();
        batchFirstLine = line + 1;
      }
    }
    await flush();
  } finally {
    bar?.stop();
  }
  return { jobs, created, lines: line, batches };
}
