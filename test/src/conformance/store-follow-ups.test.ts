import { it } from 'node:test';
import assert from 'node:assert/strict';
import { NudgeError } from '@nudge/core';
import { rawQuery } from '../helpers/index.js';
import { describeStore, later, leaseOf } from './store-fixture.js';

describeStore('follow-up jobs', (t) => {
  const count = async () =>
    Number((await rawQuery<{ n: number }>(t.db, 'SELECT count(*) AS n FROM nudge_jobs'))[0]?.n);

  it('a recorded completion inserts its follow-ups with their options, in the same call', async () => {
    await t.store.enqueue({ kind: 'k' });
    await t.store.enqueue({ kind: 'b', idempotencyKey: 'taken' });
    const [parent] = await t.claim(1, { kinds: ['k'] });
    assert.ok(parent);
    const now = await t.store.now();
    const written = await t.store.complete(
      [
        {
          ...leaseOf(parent),
          resultJson: '1',
          followUps: [
            { kind: 'a', payloadJson: '{"n":[1,2]}', concurrencyKey: 'customer-1' },
            { kind: 'b', queue: 'mail', priority: -3, maxAttempts: 2, idempotencyKey: 'once' },
            { kind: 'b', idempotencyKey: 'once' },
            { kind: 'b', idempotencyKey: 'taken' },
            { kind: 'c', delayMs: 60_000 },
            { kind: 'c', runAt: later(now, -1000) },
          ],
        },
      ],
      now,
    );
    assert.deepEqual(written, [leaseOf(parent)]);
    const jobs = (await t.store.listJobs({ limit: 100 })).filter((j) => j.id > parent.id + 1);
    jobs.sort((x, y) => x.id - y.id);
    assert.deepEqual(
      jobs.map((j) => [j.kind, j.status, j.payload, j.queue, j.priority, j.maxAttempts, j.idempotencyKey]),
      [
        ['a', 'PENDING', { n: [1, 2] }, 'default', 0, 5, null],
        ['b', 'PENDING', {}, 'mail', -3, 2, 'once'],
        ['c', 'SCHEDULED', {}, 'default', 0, 5, null],
        ['c', 'PENDING', {}, 'default', 0, 5, null],
      ],
      'a repeated or existing key is skipped',
    );
    assert.deepEqual(
      jobs.map((j) => j.concurrencyKey),
      ['customer-1', null, null, null],
      'the concurrency key is kept',
    );
    assert.equal(jobs[2]?.runAt.getTime(), now.getTime() + 60_000, 'delay from the database clock');
    assert.equal(jobs[3]?.runAt.getTime(), now.getTime() - 1000);
  });

  it('a fenced-out completion inserts none of its follow-ups; a current one in the batch does', async () => {
    await t.store.enqueueMany([{ kind: 'k' }, { kind: 'k' }]);
    const [stale, current] = await t.claim(2);
    assert.ok(stale && current);
    const before = await count();
    const written = await t.store.complete([
      { ...leaseOf(stale), version: stale.version + 1, resultJson: null, followUps: [{ kind: 'lost' }] },
      { ...leaseOf(current), resultJson: null, followUps: [{ kind: 'kept' }, { kind: 'kept' }] },
    ]);
    assert.deepEqual(written, [leaseOf(current)]);
    assert.equal(await count(), before + 2);
    const kinds = (await t.store.listJobs({ limit: 10 })).map((j) => j.kind);
    assert.equal(kinds.includes('lost'), false);
    assert.deepEqual(
      await t.store.complete([{ ...leaseOf(stale), resultJson: null, followUps: [{ kind: 'x' }] }]),
      [leaseOf(stale)],
    );
    assert.deepEqual(
      await t.store.complete([{ ...leaseOf(stale), resultJson: null, followUps: [{ kind: 'again' }] }]),
      [],
      'already SUCCEEDED: fenced out',
    );
    assert.equal(await count(), before + 3);
  });

  it('an unstorable follow-up refuses the whole batch before anything is written', async () => {
    await t.store.enqueue({ kind: 'k' });
    const [job] = await t.claim(1);
    assert.ok(job);
    await assert.rejects(
      t.store.complete([
        { ...leaseOf(job), resultJson: null, followUps: [{ kind: 'a', payloadJson: '{"s":"\\u0000"}' }] },
      ]),
      (error: unknown) => error instanceof NudgeError && error.code === 'PAYLOAD_UNSTORABLE',
    );
    assert.equal((await t.store.getJob(job.id))?.status, 'RUNNING');
    assert.equal(await count(), 1);
  });
});
