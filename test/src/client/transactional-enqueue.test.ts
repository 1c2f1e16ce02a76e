// The transactional enqueue of @nudge/client on every executor type of each dialect, with a real
// engine draining the database: a producer transaction that rolls back leaves no job and runs
// nothing; one that commits runs its job exactly once.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  describeEngine,
  DIALECTS,
  rawQuery,
  waitForEvent,
  waitUntil,
  type EngineCase,
} from '../helpers/index.js';
import { producerExecutors, Rollback } from './producer-executors.js';

const count = async (t: EngineCase, table: string): Promise<number> =>
  Number((await rawQuery<{ n: number | string }>(t.db, `SELECT count(*) AS n FROM ${table}`))[0]?.n);

const ranIds = (file: string): number[] =>
  existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];

for (const dialect of DIALECTS) {
  describeEngine(
    'transactional enqueue',
    (t) => {
      for (const executor of producerExecutors(dialect)) {
        if (executor.transactional) {
          test(`${executor.name}: a rolled-back producer transaction leaves no job and runs nothing`, async () => {
            const engine = await t.engine();
            engine.start();
            const file = join(t.scratch.dir, 'tally');
            await assert.rejects(
              executor.write(
                t.db,
                [
                  { kind: 'tally', payload: { file } },
                  { kind: 'tally', payload: { file } },
                ],
                true,
              ),
              Rollback,
            );
            assert.equal(await count(t, 'nudge_jobs'), 0);
            assert.equal(await count(t, 'orders'), 0);
            const empty = waitForEvent(engine, 'claim:empty');
            engine.requestClaim();
            await empty;
            assert.deepEqual(ranIds(file), []);
          });
        }

        test(`${executor.name}: a committed producer transaction runs each job once`, async () => {
          const engine = await t.engine();
          engine.start();
          const file = join(t.scratch.dir, 'tally');
          const results = await executor.write(
            t.db,
            [
              { kind: 'tally', payload: { file } },
              { kind: 'tally', payload: { file }, priority: -5, maxAttempts: 2, queue: 'default' },
            ],
            false,
          );
          assert.equal(results.length, 2);
          assert.ok(results.every((result) => result.created));
          assert.equal(await count(t, 'orders'), 1);
          engine.requestClaim();
          for (const { id } of results) {
            await waitUntil(async () =>
              (await t.store.getJob(id))?.status === 'SUCCEEDED' ? true : undefined,
            );
          }
          assert.deepEqual(
            ranIds(file).sort((a, b) => a - b),
            results.map((r) => r.id).sort((a, b) => a - b),
          );
          const second = await t.store.getJob(results[1]?.id ?? 0);
          assert.equal(second?.priority, -5);
          assert.equal(second?.maxAttempts, 2);
        });
      }
    },
    [dialect],
  );
}
