import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeStore, leaseOf } from './store-fixture.js';

describeStore('progress', (t) => {
  it('setProgress writes current attempts in one batch; a stale version or a finished job writes nothing', async () => {
    await t.store.enqueueMany([{ kind: 'a' }, { kind: 'b' }, { kind: 'c' }]);
    const jobs = await t.claim(3);
    const [a, b, c] = [...jobs].sort((x, y) => x.id - y.id);
    assert.ok(a && b && c);
    await t.store.complete([{ ...leaseOf(c), resultJson: null }]);
    const written = await t.store.setProgress([
      { ...leaseOf(a), progressJson: '42' },
      { ...leaseOf(b), version: b.version + 1, progressJson: '{"percent":10}' },
      { ...leaseOf(c), progressJson: '99' },
    ]);
    assert.deepEqual(written, [leaseOf(a)]);
    assert.equal((await t.store.getJob(a.id))?.progress, 42);
    assert.equal((await t.store.getJob(b.id))?.progress, null, 'stale version');
    assert.equal((await t.store.getJob(c.id))?.progress, null, 'no longer RUNNING');
    await t.store.setProgress([{ ...leaseOf(a), progressJson: '{"percent":50,"step":"upload"}' }]);
    assert.deepEqual((await t.store.getJob(a.id))?.progress, { percent: 50, step: 'upload' });
  });

  it('progress stays after the job finishes; a completion or failure may carry the last value', async () => {
    await t.store.enqueueMany([{ kind: 'a' }, { kind: 'b' }, { kind: 'c', maxAttempts: 1 }]);
    const jobs = await t.claim(3);
    const byKind = (kind: string) => jobs.find((j) => j.kind === kind) ?? assert.fail(kind);
    await t.store.setProgress(jobs.map((j) => ({ ...leaseOf(j), progressJson: '10' })));
    assert.equal(
      (
        await t.store.complete([
          { ...leaseOf(byKind('a')), resultJson: '"done"' },
          { ...leaseOf(byKind('b')), resultJson: null, progressJson: '{"percent":100}' },
        ])
      ).length,
      2,
    );
    await t.store.fail([{ ...leaseOf(byKind('c')), error: 'x', retryDelayMs: 0, progressJson: '77' }]);
    assert.equal((await t.store.getJob(byKind('a').id))?.progress, 10, 'kept after success');
    assert.deepEqual((await t.store.getJob(byKind('b').id))?.progress, { percent: 100 });
    const failed = await t.store.getJob(byKind('c').id);
    assert.equal(failed?.status, 'FAILED');
    assert.equal(failed?.progress, 77);
  });
});
