import { it } from 'node:test';
import assert from 'node:assert/strict';
import { rawQuery } from '../helpers/index.js';
import { describeStore, leaseOf } from './store-fixture.js';

const A = '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}';
const B = '{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"v=1"}';

describeStore('trace context', (t) => {
  const column = async (id: number): Promise<string | null> =>
    (
      await rawQuery<{ trace_context: string | null }>(
        t.db,
        `SELECT trace_context FROM nudge_jobs WHERE id = ${id}`,
      )
    )[0]?.trace_context ?? null;

  it('an enqueue stores the trace context and the claim ships it; a job without one claims without', async () => {
    const traced = await t.store.enqueue({ kind: 'k', traceContext: A });
    const plain = await t.store.enqueue({ kind: 'k' });
    const [, many] = await t.store.enqueueMany([{ kind: 'k' }, { kind: 'k', traceContext: B, priority: 1 }]);
    assert.ok(many);
    assert.equal(await column(traced.id), A);
    assert.equal(await column(plain.id), null);
    const claimed = await t.claim(10, { kinds: ['k'] });
    const byId = new Map(claimed.map((job) => [job.id, job]));
    assert.equal(byId.get(traced.id)?.traceContext, A);
    assert.equal(byId.get(many.id)?.traceContext, B);
    assert.ok(byId.has(plain.id));
    assert.equal('traceContext' in (byId.get(plain.id) ?? {}), false, 'absent, not null');
  });

  it('a tracestate past the W3C bounds is dropped and the traceparent kept, on enqueue and debounce alike', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const tooMany = Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',');
    const long = JSON.stringify({ traceparent, tracestate: tooMany });
    const kept = JSON.stringify({ traceparent, tracestate: 'a=1,b=2' });
    const single = await t.store.enqueue({ kind: 'k', traceContext: long });
    const [many] = await t.store.enqueueMany([
      { kind: 'k', traceContext: JSON.stringify({ traceparent, tracestate: ' a=1 ,b=2' }) },
    ]);
    const debounced = await t.store.enqueue({ kind: 'k', debounce: { key: 'd', delayMs: 60_000 } });
    await t.store.enqueue({ kind: 'k', debounce: { key: 'd', delayMs: 60_000 }, traceContext: long });
    assert.equal(await column(single.id), JSON.stringify({ traceparent }));
    assert.equal(await column(many?.id ?? 0), kept);
    assert.equal(await column(debounced.id), JSON.stringify({ traceparent }));
  });

  it('a retried job keeps its trace context for the next attempt', async () => {
    const job = await t.store.enqueue({ kind: 'k', traceContext: A });
    const [first] = await t.claim(1, { kinds: ['k'] });
    assert.ok(first);
    await t.store.fail([{ ...leaseOf(first), error: 'boom', retryDelayMs: 0 }]);
    const [second] = await t.claim(1, { kinds: ['k'] });
    assert.equal(second?.id, job.id);
    assert.equal(second?.attempt, 2);
    assert.equal(second?.traceContext, A);
  });

  it('the enqueue that claims for itself stores it, and so do delayed, debounced and dependent jobs', async () => {
    const self = await t.store.enqueueAndClaim(
      { kind: 'k', traceContext: A },
      { workerId: 'w1', leaseMs: 10_000, kinds: ['k'] },
    );
    assert.equal(self.status, 'RUNNING');
    assert.equal(await column(self.id), A);
    const delayed = await t.store.enqueue({ kind: 'k', delayMs: 60_000, traceContext: B });
    const debounced = await t.store.enqueue({
      kind: 'k',
      debounce: { key: 'd', delayMs: 60_000 },
      traceContext: B,
    });
    const dependent = await t.store.enqueue({ kind: 'k', dependsOn: [self.id], traceContext: B });
    for (const job of [delayed, debounced, dependent]) assert.equal(await column(job.id), B);
    await t.store.complete([{ ...leaseOf(self), resultJson: null }]);
    const [released] = await t.claim(1, { kinds: ['k'] });
    assert.equal(released?.id, dependent.id);
    assert.equal(released?.traceContext, B);
  });

  it('follow-ups store their own trace context, plain and through the enqueue plan', async () => {
    await t.store.enqueue({ kind: 'k' });
    const [parent] = await t.claim(1, { kinds: ['k'] });
    assert.ok(parent);
    await t.store.complete([
      {
        ...leaseOf(parent),
        resultJson: null,
        followUps: [
          { kind: 'a', traceContext: A },
          { kind: 'a' },
          { kind: 'b', traceContext: B, debounce: { key: 'x', delayMs: 1000 } },
        ],
      },
    ]);
    const rows = await rawQuery<{ kind: string; trace_context: string | null }>(
      t.db,
      `SELECT kind, trace_context FROM nudge_jobs WHERE id > ${parent.id} ORDER BY id`,
    );
    assert.deepEqual(
      rows.map((row) => [row.kind, row.trace_context]),
      [
        ['a', A],
        ['a', null],
        ['b', B],
      ],
    );
  });

  it("a debounce replacement carries the replacing enqueue's trace context, as it does its payload", async () => {
    const debounce = { key: 'd', delayMs: 60_000 };
    const first = await t.store.enqueue({ kind: 'k', payload: { n: 1 }, debounce, traceContext: A });
    const second = await t.store.enqueue({ kind: 'k', payload: { n: 2 }, debounce, traceContext: B });
    assert.equal(second.id, first.id, 'replaced, not created');
    assert.equal(await column(first.id), B);
    const third = await t.store.enqueue({ kind: 'k', payload: { n: 3 }, debounce });
    assert.equal(third.id, first.id);
    assert.equal(await column(first.id), null, 'an enqueue without one leaves none');
    const other = await t.store.enqueue({
      kind: 'k',
      debounce: { key: 'other', delayMs: 60_000 },
      traceContext: A,
    });
    assert.equal(await column(other.id), A, "another key's job is untouched");
  });

  it('a bulk retry keeps each trace context for the next attempt, a job without one stays without', async () => {
    const jobs = await t.store.enqueueMany([
      { kind: 'k', traceContext: A, maxAttempts: 1 },
      { kind: 'k', maxAttempts: 1 },
      { kind: 'k', traceContext: B, maxAttempts: 1 },
    ]);
    const claimed = await t.claim(3, { kinds: ['k'] });
    assert.equal(claimed.length, 3);
    await t.store.fail(claimed.map((job) => ({ ...leaseOf(job), error: 'boom', retryDelayMs: 0 })));
    assert.equal((await t.store.retryJobs({ status: 'FAILED' })).changed, 3);
    const again = new Map((await t.claim(3, { kinds: ['k'] })).map((job) => [job.id, job]));
    const [a, none, b] = jobs;
    assert.ok(a && none && b);
    assert.equal(again.get(a.id)?.traceContext, A);
    assert.equal(again.get(b.id)?.traceContext, B);
    assert.equal('traceContext' in (again.get(none.id) ?? {}), false);
  });
});
