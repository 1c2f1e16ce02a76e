// The transactional enqueue's rules on each dialect, through the native driver and Kysely:
// idempotency keys, delays by the database clock, validation before any write, large batches.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { NudgeError } from '@nudge/core';
import { enqueue, enqueueMany, enqueueSync, type EnqueueExecutor, type JobFor } from '@nudge/client';
import type { Store } from '@nudge/store';
import {
  DIALECTS,
  createMigratedDatabase,
  openStore,
  rawQuery,
  testPool,
  type TestDatabase,
} from '../helpers/index.js';

interface Opened {
  readonly executor: EnqueueExecutor;
  close(): Promise<void>;
}

const openers: Record<'sqlite' | 'postgres', Record<string, (db: TestDatabase) => Promise<Opened>>> = {
  sqlite: {
    'better-sqlite3': async (db) => {
      const conn = new Database(db.url.slice('sqlite:'.length));
      return { executor: conn, close: async () => void conn.close() };
    },
    Kysely: async (db) => {
      const kysely = new Kysely({
        dialect: new SqliteDialect({ database: new Database(db.url.slice('sqlite:'.length)) }),
      });
      return { executor: kysely, close: () => kysely.destroy() };
    },
  },
  postgres: {
    'pg client (autocommit)': async (db) => {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      return { executor: client, close: () => client.end() };
    },
    Kysely: async (db) => {
      const kysely = new Kysely({
        dialect: new PostgresDialect({ pool: testPool(db.url) }),
      });
      return { executor: kysely, close: () => kysely.destroy() };
    },
  },
};

/** Makes the database refuse inserts of `kind` (a trigger), to fail a batch halfway. */
async function refuseKind(db: TestDatabase, kind: string): Promise<void> {
  if (db.dialect === 'sqlite') {
    await rawQuery(
      db,
      `CREATE TRIGGER IF NOT EXISTS refuse_${kind} BEFORE INSERT ON nudge_jobs WHEN NEW.kind = '${kind}'
       BEGIN SELECT RAISE(ABORT, '${kind} refused'); END`,
    );
    return;
  }
  await rawQuery(
    db,
    `CREATE OR REPLACE FUNCTION refuse_${kind}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN IF NEW.kind = '${kind}' THEN RAISE EXCEPTION '${kind} refused'; END IF; RETURN NEW; END $$`,
  );
  await rawQuery(db, `DROP TRIGGER IF EXISTS refuse_${kind} ON nudge_jobs`);
  await rawQuery(
    db,
    `CREATE TRIGGER refuse_${kind} BEFORE INSERT ON nudge_jobs FOR EACH ROW EXECUTE FUNCTION refuse_${kind}()`,
  );
}

type Payloads = { greet: { name: string }; count: { n: number } };

for (const dialect of DIALECTS) {
  for (const [name, open] of Object.entries(openers[dialect])) {
    describe(`transactional enqueue rules: ${dialect}, ${name}`, () => {
      let db: TestDatabase;
      let store: Store;
      let opened: Opened;
      before(async () => {
        db = await createMigratedDatabase(dialect);
        store = await openStore(db);
        opened = await open(db);
      });
      after(async () => {
        await opened.close();
        await store.close();
        await db.drop();
      });
      const jobCount = async (): Promise<number> =>
        Number((await rawQuery<{ n: number | string }>(db, 'SELECT count(*) AS n FROM nudge_jobs'))[0]?.n);

      test('an idempotency key creates one job; repeats return its id, in input order', async () => {
        const first = await enqueue(opened.executor, {
          kind: 'greet',
          idempotencyKey: 'k1',
          payload: { n: 1 },
        });
        assert.equal(first.created, true);
        const results = await enqueueMany(opened.executor, [
          { kind: 'greet', idempotencyKey: 'k2' },
          { kind: 'greet', idempotencyKey: 'k1' },
          { kind: 'greet' },
          { kind: 'greet', idempotencyKey: 'k2' },
          { kind: 'other', idempotencyKey: 'k1' },
        ]);
        assert.deepEqual(
          results.map((r) => r.created),
          [true, false, true, false, true],
        );
        assert.equal(results[1]?.id, first.id);
        assert.equal(results[3]?.id, results[0]?.id);
        assert.notEqual(results[4]?.id, first.id);
        const stored = await store.getJob(first.id);
        assert.deepEqual(stored?.payload, { n: 1 }, 'the first payload is kept');
      });

      test('delayMs schedules the job from the database clock; runAt in the past is pending', async () => {
        const dbBefore = (await store.now()).getTime();
        const [later, now, past, future] = await enqueueMany(opened.executor, [
          { kind: 'greet', delayMs: 60_000 },
          { kind: 'greet', delayMs: 0 },
          { kind: 'greet', runAt: new Date(Date.now() - 60_000) },
          { kind: 'greet', runAt: new Date(Date.now() + 3_600_000) },
        ]);
        const status = async (id: number | undefined) => (await store.getJob(id ?? 0))?.status;
        assert.equal(await status(later?.id), 'SCHEDULED');
        assert.equal(await status(now?.id), 'PENDING');
        assert.equal(await status(past?.id), 'PENDING');
        assert.equal(await status(future?.id), 'SCHEDULED');
        // The database's clock read before and after the enqueue brackets the one it used.
        const dbAfter = (await store.now()).getTime();
        const run = await store.getJob(later?.id ?? 0);
        assert.ok(run);
        const runAt = run.runAt.getTime();
        assert.ok(
          runAt >= dbBefore + 60_000 - 1 && runAt <= dbAfter + 60_000 + 1,
          `run_at is 60 s after the database's now at the enqueue (${runAt - dbBefore} ms after the read before)`,
        );
        assert.ok(Math.abs(runAt - run.createdAt.getTime() - 60_000) <= 1, 'run_at = created_at + 60 s');
      });

      test('invalid jobs throw before anything is written', async () => {
        const before = await jobCount();
        const cases: Array<[unknown[], string, RegExp]> = [
          [
            [{ kind: 'greet' }, { kind: 'greet', priority: 1.5 }],
            'INVALID_REQUEST',
            /^\/jobs\/1\/priority must be an integer/,
          ],
          [[{ kind: '' }], 'INVALID_REQUEST', /^\/kind must be a string of 1 to 200/],
          [[{ kind: 'greet', maxAttempts: 0 }], 'INVALID_REQUEST', /maxAttempts/],
          [
            [{ kind: 'greet', runAt: new Date('x') }],
            'INVALID_REQUEST',
            /^\/runAt must be a date-time from 1970 to 9999 .*\(got Invalid Date\)$/,
          ],
          [[{ kind: 'greet', delayMs: -1 }], 'INVALID_REQUEST', /delayMs/],
          [[{ kind: 'greet', delayMs: 1, runAt: new Date() }], 'INVALID_REQUEST', /cannot both/],
          [[{ kind: 'greet', colour: 'red' }], 'INVALID_REQUEST', /^\/colour is not a job field/],
          [
            [{ kind: 'greet' }, { kind: 'greet', payload: { a: 'x\u0000' } }],
            'PAYLOAD_UNSTORABLE',
            /^\/jobs\/1\/payload\/a:/,
          ],
          [[{ kind: 'greet', payload: { n: Number.NaN } }], 'PAYLOAD_UNSTORABLE', /payload\/n/],
          [
            [{ kind: 'greet', payload: JSON.parse('['.repeat(150) + ']'.repeat(150)) as unknown }],
            'PAYLOAD_TOO_DEEP',
            /payload/,
          ],
        ];
        for (const [jobs, code, message] of cases) {
          await assert.rejects(
            enqueueMany(opened.executor, jobs as JobFor<Record<string, never>>[]),
            (error: unknown) =>
              error instanceof NudgeError && error.code === code && message.test(error.message),
            `${JSON.stringify(jobs).slice(0, 80)} → ${code}`,
          );
        }
        assert.equal(await jobCount(), before);
      });

      test('a large batch of mixed shapes is written in order, all or nothing', async () => {
        const jobs: JobFor<Payloads>[] = Array.from({ length: 2500 }, (_, i) =>
          i % 700 === 0
            ? { kind: 'count', payload: { n: i }, priority: 1 }
            : { kind: 'count', payload: { n: i } },
        );
        const results = await enqueueMany<Payloads>(opened.executor, jobs);
        assert.equal(results.length, 2500);
        for (let i = 1; i < results.length; i += 1) {
          assert.ok((results[i]?.id ?? 0) > (results[i - 1]?.id ?? 0), 'ids ascend in input order');
        }
        const sample = await store.getJob(results[1400]?.id ?? 0);
        assert.deepEqual(sample?.payload, { n: 1400 });
        assert.equal(sample?.priority, 1);
        const before = await jobCount();
        // The database refuses a job of the third INSERT: the first two are undone with it.
        await refuseKind(db, 'boom');
        await assert.rejects(enqueueMany(opened.executor, [...jobs, { kind: 'boom' }]), /boom refused/);
        assert.equal(await jobCount(), before);
      });
    });
  }
}

describe('transactional enqueue: compile-time payload types', () => {
  test('a kind → payload map types each job', () => {
    const job: JobFor<Payloads> = { kind: 'greet', payload: { name: 'ada' } };
    // @ts-expect-error the payload of `count` is { n: number }
    const wrong: JobFor<Payloads> = { kind: 'count', payload: { name: 'ada' } };
    assert.ok(job && wrong);
    const typed = (db: Database.Database) => enqueueSync<Payloads>(db, { kind: 'count', payload: { n: 1 } });
    assert.equal(typeof typed, 'function');
  });
});
