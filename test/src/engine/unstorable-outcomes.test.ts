// A handler's result or error that a dialect could not store must never fail the outcome write
// (which would hold back every outcome of its batch): the result fails its own attempt with a
// clear message; an error message is made storable and cut to a bounded length.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_ERROR_CHARS } from '@nudge/core';
import { describeEngine, waitUntil } from '../helpers/index.js';

describeEngine('engine: results and errors no dialect can store', (t) => {
  it('fails the attempt of an unstorable result with the reason, while its batch neighbours succeed', async () => {
    const engine = await t.engine({ threads: 1 });
    const bad = await t.store.enqueueMany(
      ['nul', 'surrogate', 'deep', 'abyss'].map((what) => ({
        kind: 'unstorableResult',
        payload: { what },
        maxAttempts: 1,
      })),
    );
    const good = await t.store.enqueueMany(Array.from({ length: 5 }, () => ({ kind: 'noop' })));
    engine.start();
    const all = [...bad, ...good];
    await waitUntil(async () => {
      const jobs = await Promise.all(all.map((job) => t.store.getJob(job.id)));
      return jobs.every((job) => job?.status === 'SUCCEEDED' || job?.status === 'FAILED') ? jobs : undefined;
    }, 20_000);
    const reasons = await Promise.all(bad.map(async (job) => (await t.store.getJob(job.id))?.lastError));
    assert.match(reasons[0] ?? '', /result cannot be stored: a string contains U\+0000/);
    assert.match(
      reasons[1] ?? '',
      /result cannot be stored: a string contains a lone UTF-16 surrogate \(\\ud800\)/,
    );
    assert.match(reasons[2] ?? '', /result cannot be stored: nesting deeper than 100 levels/);
    assert.match(reasons[3] ?? '', /result cannot be stored: it nests deeper than the stack allows/);
    for (const job of bad) assert.equal((await t.store.getJob(job.id))?.status, 'FAILED');
    for (const job of good) assert.equal((await t.store.getJob(job.id))?.status, 'SUCCEEDED');
  });

  it('stores an error holding U+0000 and a lone surrogate, cut to the documented length', async () => {
    const engine = await t.engine({ threads: 1 });
    const job = await t.store.enqueue({ kind: 'failLoudly', maxAttempts: 1 });
    engine.start();
    const failed = await waitUntil(async () => {
      const current = await t.store.getJob(job.id);
      return current?.status === 'FAILED' ? current : undefined;
    }, 20_000);
    const error = failed.lastError ?? '';
    assert.ok(error.startsWith('bad\ufffd xxx'), error.slice(0, 40));
    assert.ok(error.length <= MAX_ERROR_CHARS, `${error.length} characters`);
    assert.match(error, /cut from \d+ characters\)$/);
  });
});
