// One contract for a job's options: the same invalid options, sent through every enqueue path
// (POST /jobs, POST /jobs/batch, the client's transactional enqueue on each executor,
// ctx.enqueue in a handler, a cron schedule), are refused with the same code and message, and
// nothing is written.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '@nudge/http';
import { NudgeError } from '@nudge/core';
import { describeEngine, rawQuery, waitUntil } from '../helpers/index.js';
import { producerExecutors } from '../client/producer-executors.js';

/** An invalid job: its fields besides `kind`, and the code and message every path must give. */
interface Case {
  readonly fields: Record<string, unknown>;
  /** `runAt` as ISO text; a `Date` for the paths that take one. */
  readonly runAtIso?: string;
  readonly code: string;
  readonly message: string;
  /** Whether a cron schedule has the fields (it has no runAt, delayMs or idempotencyKey). */
  readonly schedulable: boolean;
}

const CASES: readonly Case[] = [
  {
    fields: { priority: 5000 },
    code: 'INVALID_REQUEST',
    message: '/priority must be an integer from -1000 to 1000 (got 5000)',
    schedulable: true,
  },
  {
    fields: { priority: 1.5 },
    code: 'INVALID_REQUEST',
    message: '/priority must be an integer from -1000 to 1000 (got 1.5)',
    schedulable: true,
  },
  {
    fields: { maxAttempts: 0 },
    code: 'INVALID_REQUEST',
    message: '/maxAttempts must be an integer from 1 to 1000 (got 0)',
    schedulable: true,
  },
  {
    fields: { queue: 'no spaces' },
    code: 'INVALID_REQUEST',
    message: `/queue must be a queue name: 1 to 100 letters, digits, '_', '.' or '-', other than '.' and '..' (got "no spaces")`,
    schedulable: true,
  },
  {
    fields: { delayMs: 365 * 86_400_000 + 1 },
    code: 'INVALID_REQUEST',
    message: '/delayMs must be a whole number of ms from 0 to 31536000000 (365 days) (got 31536000001)',
    schedulable: false,
  },
  {
    fields: { delayMs: 5 },
    runAtIso: '2030-01-01T00:00:00.000Z',
    code: 'INVALID_REQUEST',
    message: '/runAt and /delayMs cannot both be given: each sets the start, pick one',
    schedulable: false,
  },
  {
    fields: { idempotencyKey: 'k'.repeat(201) },
    code: 'INVALID_REQUEST',
    message: `/idempotencyKey must be a string of 1 to 200 characters (got "${'k'.repeat(56)}...)`,
    schedulable: false,
  },
  {
    fields: { throttle: { key: 'k', windowMs: 0 } },
    code: 'INVALID_REQUEST',
    message: '/throttle/windowMs must be a whole number of ms from 1 to 31536000000 (365 days) (got 0)',
    schedulable: false,
  },
  {
    fields: { idempotencyKey: 'i', debounce: { key: 'k', delayMs: 5 } },
    code: 'INVALID_REQUEST',
    message:
      '/debounce and /idempotencyKey cannot both be given: debounce replaces the waiting job, an idempotency key never does; pick one',
    schedulable: false,
  },
  {
    fields: { payload: { s: 'a\ud800' } },
    code: 'PAYLOAD_UNSTORABLE',
    message: '/payload/s: a string contains a lone UTF-16 surrogate (\\ud800), which is not valid Unicode',
    schedulable: true,
  },
];

const KIND = 'noop';

/** The job of a case as a client or the store takes it (`runAt` a `Date`). */
const jobOf = (c: Case) => ({
  kind: KIND,
  ...c.fields,
  ...(c.runAtIso === undefined ? {} : { runAt: new Date(c.runAtIso) }),
});

/** The job of a case as an HTTP body (`runAt` ISO text). */
const bodyOf = (c: Case) => ({
  kind: KIND,
  ...c.fields,
  ...(c.runAtIso === undefined ? {} : { runAt: c.runAtIso }),
});

const refusal = (error: unknown) => ({
  code: error instanceof NudgeError ? error.code : String(error),
  message: (error as Error).message,
});

describeEngine('one job-options contract on every enqueue path', (t) => {
  it('POST /jobs, POST /jobs/batch and the client on each executor give the same code and message', async () => {
    const engine = await t.engine({ threads: 1 });
    const app = await buildApp({ store: t.store, engine });
    try {
      for (const c of CASES) {
        const expected = { code: c.code, message: c.message };
        const single = await app.inject({ method: 'POST', url: '/jobs', payload: bodyOf(c) });
        assert.equal(single.statusCode, 400, single.body);
        const answer = JSON.parse(single.body) as { code: string; message: string };
        assert.deepEqual({ code: answer.code, message: answer.message }, expected, 'POST /jobs');

        const batch = await app.inject({
          method: 'POST',
          url: '/jobs/batch',
          payload: { jobs: [{ kind: KIND }, bodyOf(c)] },
        });
        assert.equal(batch.statusCode, 400, batch.body);
        const batchAnswer = JSON.parse(batch.body) as { code: string; errors: unknown[] };
        assert.equal(batchAnswer.code, 'INVALID_BATCH');
        assert.deepEqual(batchAnswer.errors, [{ index: 1, ...expected }], 'POST /jobs/batch');

        for (const executor of producerExecutors(t.db.dialect)) {
          const refused = await executor
            .write(t.db, [jobOf(c) as never], false)
            .then(() => assert.fail(`${executor.name} accepted ${JSON.stringify(c.fields)}`), refusal);
          assert.deepEqual(refused, expected, executor.name);
        }
      }
    } finally {
      await app.close();
    }
    const [row] = await rawQuery<{ n: number | string }>(t.db, 'SELECT count(*) AS n FROM nudge_jobs');
    assert.equal(Number(row?.n), 0, 'no path wrote a job');
  });

  it('ctx.enqueue in a handler throws the same code and message, and the job enqueues nothing', async () => {
    const engine = await t.engine({ threads: 1 });
    // The parent's payload carries each call; a lone surrogate cannot travel in it, so the
    // handler puts that one in.
    const calls = CASES.map((c) => {
      const { payload, ...options } = c.fields;
      const bad = payload === undefined ? undefined : Object.keys(payload as object)[0];
      return {
        kind: KIND,
        options,
        ...(bad === undefined ? {} : { payload: {}, loneSurrogateKey: bad }),
        ...(c.runAtIso === undefined ? {} : { runAtIso: c.runAtIso }),
      };
    });
    const job = await t.store.enqueue({ kind: 'enqueueEach', payload: { calls } as never });
    engine.start();
    const done = await waitUntil(async () => {
      const stored = await t.store.getJob(job.id);
      return stored?.status === 'SUCCEEDED' ? stored : undefined;
    });
    assert.deepEqual(
      done.result,
      CASES.map((c) => ({ code: c.code, message: c.message })),
    );
    assert.equal((await t.store.listJobs({ kind: KIND, limit: 10 })).length, 0, 'no follow-up was written');
  });

  it('a cron schedule with such fields is refused with the same code and message', async () => {
    for (const c of CASES.filter((each) => each.schedulable)) {
      const schedule = { name: 'tick', cron: '* * * * *', ...jobOf(c) };
      await assert.rejects(t.engine({ schedules: [schedule] }), (error: unknown) => {
        assert.deepEqual(refusal(error), {
          code: c.code,
          message: `schedules: schedule "tick": ${c.message}`,
        });
        return true;
      });
    }
  });
});
