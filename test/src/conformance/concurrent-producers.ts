import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { JsonValue } from '@nudge/core';
import { PostgresStore, type EnqueueInput } from '@nudge/store';
import { waitUntil, type TestDatabase } from '../helpers/index.js';

const PRODUCER = fileURLToPath(new URL('../fixtures/enqueue-deduped.js', import.meta.url));

/** What one producer was answered. */
export interface ProducerAnswer {
  readonly id: number;
  readonly created: boolean;
  readonly payload: JsonValue;
  readonly runAt: string;
}

/**
 * `count` producers enqueue `job` at once, each with its own payload `{ pid }` (PostgreSQL: one
 * connection each, distinct `pid`s numbered from 1; SQLite: one process each on the same file,
 * started together through a barrier file once all are ready).
 */
export async function concurrentProducers(
  db: TestDatabase,
  job: EnqueueInput,
  count: number,
): Promise<ProducerAnswer[]> {
  if (db.dialect === 'postgres') {
    const stores = Array.from({ length: count }, () => new PostgresStore(db.url, { poolSize: 1 }));
    try {
      await Promise.all(stores.map((store) => store.ping()));
      const jobs = await Promise.all(
        stores.map((store, i) => store.enqueue({ ...job, payload: { pid: i + 1 } })),
      );
      return jobs.map((j) => ({
        id: j.id,
        created: j.created,
        payload: j.payload,
        runAt: j.runAt.toISOString(),
      }));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  }
  const folder = mkdtempSync(join(tmpdir(), 'nudge-dedupe-'));
  const start = join(folder, 'start');
  const ready = join(folder, 'ready');
  mkdirSync(ready);
  const run = promisify(execFile);
  const producers = Array.from({ length: count }, () =>
    run(process.execPath, [PRODUCER, db.url, JSON.stringify(job), start, ready]),
  );
  await waitUntil(
    () => (readdirSync(ready).length === count ? true : undefined),
    // 20 Node processes starting on a loaded machine can take a while.
    120_000,
    5,
    'every producer ready',
  );
  writeFileSync(start, '');
  return (await Promise.all(producers)).map(({ stdout }) => JSON.parse(stdout) as ProducerAnswer);
}
