import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeEngine, waitUntil } from '../helpers/index.js';

describeEngine('job dependencies in handlers', (t) => {
  for (const kind of ['readDependencies', 'asyncReadDependencies']) {
    it(`${kind}: a job runs after its dependencies and reads their outcomes in ctx.dependencies`, async () => {
      const engine = await t.engine({ threads: 2 });
      const jobs = await t.store.enqueueMany([
        { kind: 'echo', payload: { part: 0 } },
        { kind: 'echo', payload: { part: 1 } },
        { kind: 'fail', payload: { message: 'no' }, maxAttempts: 1 },
        { kind, dependsOn: [{ index: 0 }, { index: 1 }, { index: 2 }], onDependencyFailure: 'run' },
        { kind },
      ]);
      const [p0, p1, failed, merge, plain] = jobs;
      assert.ok(p0 && p1 && failed && merge && plain);
      assert.equal(merge.status, 'WAITING');
      engine.start();
      const done = await waitUntil(async () => {
        const job = await t.store.getJob(merge.id);
        return job?.status === 'SUCCEEDED' ? job : undefined;
      });
      const parts = await Promise.all([p0, p1].map((job) => t.store.getJob(job.id)));
      const result = done.result as { dependencies: Record<string, unknown>; frozen: boolean };
      assert.deepEqual(result.dependencies, {
        [p0.id]: { status: 'SUCCEEDED', result: parts[0]?.result },
        [p1.id]: { status: 'SUCCEEDED', result: parts[1]?.result },
        [failed.id]: { status: 'FAILED', result: null },
      });
      assert.ok(result.frozen);
      const other = await waitUntil(async () => {
        const job = await t.store.getJob(plain.id);
        return job?.status === 'SUCCEEDED' ? job : undefined;
      });
      assert.deepEqual(other.result, { dependencies: {}, frozen: true }, 'none without dependencies');
    });
  }

  it('a handler fans out a flow with ctx.enqueue: the merge waits for its parts by index and reads them', async () => {
    const engine = await t.engine({ threads: 2 });
    const before = await t.store.enqueue({ kind: 'echo', payload: { part: 'before' } });
    const parent = await t.store.enqueue({
      kind: 'fanOutFlow',
      payload: { parts: [0, 1, 2], alsoAfter: [before.id] },
    });
    engine.start();
    const finished = await waitUntil(async () => {
      const jobs = await t.store.listJobs({ kind: 'readDependencies', limit: 10 });
      return jobs[0]?.status === 'SUCCEEDED' ? jobs[0] : undefined;
    });
    assert.deepEqual((await t.store.getJob(parent.id))?.result, { indexes: [0, 1, 2], merge: 3 });
    const parts = (await t.store.listJobs({ kind: 'echo', limit: 10 }))
      .filter((job) => job.id > parent.id)
      .sort((a, b) => a.id - b.id);
    assert.equal(parts.length, 3);
    assert.deepEqual(finished.dependsOn, [...parts.map((p) => p.id), before.id]);
    const result = finished.result as { dependencies: Record<string, { status: string }> };
    assert.deepEqual(
      Object.keys(result.dependencies)
        .map(Number)
        .sort((a, b) => a - b),
      [before.id, ...parts.map((p) => p.id)],
    );
    for (const part of [...parts, before]) {
      const job = await t.store.getJob(part.id);
      assert.deepEqual(result.dependencies[part.id], { status: 'SUCCEEDED', result: job?.result });
      // Its handler read every dependency finished (above). By the recorded times, the merge's
      // outcome came after theirs: not its started_at, which on PostgreSQL is when its claim
      // statement arrived, and can precede a dependency's finished_at (the outcome transaction's
      // start) by the claim's planning time when the outcome commits meanwhile.
      assert.ok(
        (job?.finishedAt?.getTime() ?? Infinity) <= (finished.finishedAt?.getTime() ?? 0),
        `the merge ran last: dependency ${part.id} finished at ${job?.finishedAt?.toISOString()}, ` +
          `the merge ${finished.id} at ${finished.finishedAt?.toISOString()} (attempt ${finished.attempts})`,
      );
    }
  });
});
