import { it } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '@nudge/core';
import { parseRetention, Pruner, type PruneResult } from '@nudge/engine';
import { buildApp, NudgeMetrics } from '@nudge/http';
import {
  describeEngine,
  parsePrometheusText,
  waitForEvent,
  waitUntil,
  type EngineCase,
} from '../helpers/index.js';

/** Enqueues through the engine and waits until every job has finished. */
async function runJobs(t: EngineCase, engine: Awaited<ReturnType<EngineCase['engine']>>) {
  const ids = {
    echo: (await engine.enqueue({ kind: 'echo' })).id,
    noop: [(await engine.enqueue({ kind: 'noop' })).id, (await engine.enqueue({ kind: 'noop' })).id],
    failed: (await engine.enqueue({ kind: 'fail', maxAttempts: 1 })).id,
    cancelled: (await engine.enqueue({ kind: 'echo', delayMs: 3_600_000 })).id,
  };
  await engine.cancel(ids.cancelled);
  await waitUntil(async () => {
    const counts = await t.store.countByStatus();
    return counts.SUCCEEDED === 3 && counts.FAILED === 1 ? true : undefined;
  });
  return ids;
}

describeEngine('retention', (t) => {
  it('deletes finished jobs past their age per status and kind, and GET /jobs/:id answers 404', async () => {
    // The finish times are a few ms old by now: age 0 deletes them, `keep` and 1d keep them.
    const engine = await t.engine({
      retention: parseRetention('SUCCEEDED=0,FAILED=keep,CANCELLED=0,echo:SUCCEEDED=1d'),
      pruneIntervalMs: 0,
    });
    const metrics = new NudgeMetrics({ store: t.store, engine, processMetrics: false });
    const app = await buildApp({ store: t.store, engine, metrics });
    engine.start();
    try {
      const ids = await runJobs(t, engine);
      const result = await engine.pruneOnce();
      assert.deepEqual(result.byStatus, { SUCCEEDED: 2, FAILED: 0, CANCELLED: 1 });
      assert.equal(result.deleted, 3);
      assert.equal(result.reclaimed, false, 'too few rows to reclaim');

      const status = async (id: number) =>
        (await app.inject({ method: 'GET', url: `/jobs/${id}` })).statusCode;
      for (const id of [...ids.noop, ids.cancelled]) {
        assert.equal(await status(id), 404, `job ${id} was pruned`);
        const body = (await app.inject({ method: 'GET', url: `/jobs/${id}` })).json<{ code: string }>();
        assert.equal(body.code, 'JOB_NOT_FOUND');
      }
      assert.equal(await status(ids.echo), 200, 'echo keeps its SUCCEEDED jobs for a day');
      assert.equal(await status(ids.failed), 200, 'FAILED jobs are kept');

      const scrape = parsePrometheusText(await metrics.scrape());
      assert.equal(scrape.sum('nudge_jobs_pruned_total', { status: 'SUCCEEDED' }), 2);
      assert.equal(scrape.sum('nudge_jobs_pruned_total', { status: 'CANCELLED' }), 1);
      assert.equal(scrape.sum('nudge_jobs_pruned_total', { status: 'FAILED' }), 0);
      assert.deepEqual((await engine.pruneOnce()).deleted, 0, 'a second run finds nothing');
    } finally {
      metrics.close();
      await app.close();
    }
  });

  it('pages through a backlog in batches of its batch size', async () => {
    const engine = await t.engine({ pruneIntervalMs: 0 });
    engine.start();
    await t.store.enqueueMany(Array.from({ length: 1205 }, () => ({ kind: 'noop' })));
    engine.requestClaim();
    await waitUntil(
      async () => ((await t.store.countByStatus()).SUCCEEDED === 1205 ? true : undefined),
      30_000,
    );
    const runs: PruneResult[] = [];
    const pruner = new Pruner({
      store: t.store,
      logger: silentLogger,
      emit: (name, result) => void (name === 'prune:done' && runs.push(result as PruneResult)),
      policy: parseRetention('SUCCEEDED=0'),
      pruneIntervalMs: 0,
      batchSize: 500,
      reclaimAfterRows: 1000,
    });
    const result = await pruner.runOnce();
    assert.deepEqual(result, {
      deleted: 1205,
      byStatus: { SUCCEEDED: 1205, FAILED: 0, CANCELLED: 0 },
      batches: 3,
      reclaimed: true,
    });
    assert.deepEqual(runs, [result]);
    assert.equal((await t.store.countByStatus()).SUCCEEDED, 0);
  });

  it('runs on its timer', async () => {
    const engine = await t.engine({ retention: parseRetention('SUCCEEDED=0'), pruneIntervalMs: 50 });
    engine.start();
    const pruned = waitForEvent<PruneResult>(engine, 'prune:done', (r) => r.deleted > 0);
    const job = await engine.enqueue({ kind: 'noop' });
    assert.equal((await pruned).byStatus.SUCCEEDED, 1);
    assert.equal(await t.store.getJob(job.id), undefined);
  });
});
