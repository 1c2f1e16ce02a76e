// Follow-ups with dependencies on both dialects: a parent's follow-ups are one batch, so a handler
// fans out parts and a merge that waits for them (`{ index }`), or waits for jobs by id. They are
// written with the completion; a dependency that names no job never fails the completion.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { NudgeError } from '@nudge/core';
import { dependencyEdges } from '../helpers/index.js';
import { describeStore, leaseOf } from './store-fixture.js';

describeStore('follow-ups with dependencies', (t) => {
  const followUpsOf = async (parentId: number) =>
    (await t.store.listJobs({ limit: 100 })).filter((j) => j.id > parentId).sort((a, b) => a.id - b.id);

  it('a fan-out and a merge waiting on it by index and on a job by id, written with the completion', async () => {
    const other = await t.store.enqueue({ kind: 'other' });
    await t.store.enqueue({ kind: 'k' });
    const [parent] = await t.claim(1, { kinds: ['k'] });
    assert.ok(parent);
    const written = await t.store.complete([
      {
        ...leaseOf(parent),
        resultJson: null,
        followUps: [
          { kind: 'part', payloadJson: '{"n":0}' },
          { kind: 'part', payloadJson: '{"n":1}', debounce: { key: 'p', delayMs: 1 } },
          { kind: 'merge', dependsOn: [{ index: 0 }, { index: 1 }, other.id] },
        ],
      },
    ]);
    assert.deepEqual(written, [leaseOf(parent)]);
    const [p0, p1, merge] = await followUpsOf(parent.id);
    assert.ok(p0 && p1 && merge);
    assert.deepEqual(
      [p0, p1, merge].map((j) => [j.kind, j.status]),
      [
        ['part', 'PENDING'],
        ['part', 'SCHEDULED'],
        ['merge', 'WAITING'],
      ],
    );
    assert.deepEqual(merge.dependsOn, [p0.id, p1.id, other.id]);
    const edges = await dependencyEdges(t.db);
    assert.deepEqual(
      edges.filter((e) => e.jobId === merge.id).map((e) => e.dependsOnId),
      [other.id, p0.id, p1.id],
    );
  });

  it('a dependency that names no job: cancel inserts the follow-up CANCELLED, run leaves it out', async () => {
    const waitFor = await t.store.enqueue({ kind: 'other' });
    await t.store.enqueue({ kind: 'k' });
    const [parent] = await t.claim(1, { kinds: ['k'] });
    assert.ok(parent);
    const absent = 9_000_000;
    const written = await t.store.complete([
      {
        ...leaseOf(parent),
        resultJson: null,
        followUps: [
          { kind: 'cancelled', dependsOn: [waitFor.id, absent] },
          { kind: 'runs', dependsOn: [absent], onDependencyFailure: 'run' },
          { kind: 'waits', dependsOn: [absent, waitFor.id], onDependencyFailure: 'run' },
          { kind: 'after', dependsOn: [{ index: 0 }], onDependencyFailure: 'run' },
        ],
      },
    ]);
    assert.deepEqual(written, [leaseOf(parent)], 'the completion is recorded');
    const jobs = await followUpsOf(parent.id);
    assert.deepEqual(
      jobs.map((j) => [j.kind, j.status, j.lastError]),
      [
        ['cancelled', 'CANCELLED', `dependency ${absent} does not exist`],
        ['runs', 'PENDING', null],
        ['waits', 'WAITING', null],
        ['after', 'PENDING', null],
      ],
    );
    assert.deepEqual(jobs[2]?.dependsOn, [absent, waitFor.id], 'dependsOn keeps every id given');
  });

  it('refuses an index that is not an earlier follow-up, and writes nothing', async () => {
    await t.store.enqueue({ kind: 'k' });
    const [parent] = await t.claim(1, { kinds: ['k'] });
    assert.ok(parent);
    await assert.rejects(
      t.store.complete([
        {
          ...leaseOf(parent),
          resultJson: null,
          followUps: [{ kind: 'a' }, { kind: 'b', dependsOn: [{ index: 1 }] }],
        },
      ]),
      (error: unknown) =>
        error instanceof NudgeError &&
        error.code === 'INVALID_REQUEST' &&
        error.message.includes('/followUps/1/dependsOn/0 refers to job 1 of the batch, which is not earlier'),
    );
    assert.equal((await t.store.getJob(parent.id))?.status, 'RUNNING');
    assert.equal((await followUpsOf(parent.id)).length, 0);
  });

  it('a fenced-out completion writes none of its dependent follow-ups', async () => {
    await t.store.enqueue({ kind: 'k' });
    const [parent] = await t.claim(1, { kinds: ['k'] });
    assert.ok(parent);
    const written = await t.store.complete([
      {
        ...leaseOf(parent),
        version: parent.version + 1,
        resultJson: null,
        followUps: [{ kind: 'a' }, { kind: 'b', dependsOn: [{ index: 0 }] }],
      },
    ]);
    assert.deepEqual(written, []);
    assert.equal((await followUpsOf(parent.id)).length, 0);
  });
});
