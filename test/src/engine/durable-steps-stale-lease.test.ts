// A step whose attempt's lease was not known held for a heartbeat interval (the handler's thread,
// or the whole process, was blocked, stopped or starved) asks the engine to confirm the lease
// before it starts: if another attempt owns the job by then, the step does not run, even though
// the abort that says so has not reached the thread yet. Both dialects, both execution classes.
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEngine, DURABLE_HANDLERS, waitForEvent, waitUntil } from '../helpers/index.js';

/** The shortest lease the engine takes, in ms: its heartbeat interval is 100 ms. */
const LEASE_MS = 300;

describeEngine('engine: a step confirms a lease that is no longer fresh', (t) => {
  for (const kind of ['blockedSteps', 'asyncBlockedSteps'] as const) {
    async function run(takeOver: boolean) {
      const ledger = join(t.scratch.dir, 'ledger');
      const startedFile = join(t.scratch.dir, 'started');
      const gate = join(t.scratch.dir, 'gate');
      // A long grace: the lost lease's abort must not end the blocked thread before its step.
      const e = await t.engine({
        handlers: DURABLE_HANDLERS,
        threads: 1,
        asyncConcurrency: 1,
        leaseMs: LEASE_MS,
        abortGraceMs: 30_000,
      });
      const job = await t.store.enqueue({ kind, payload: { ledger, startedFile, gate } });
      const ended = waitForEvent<{ job: { id: number } }>(e, 'job:ended', (x) => x.job.id === job.id);
      e.start();
      await waitUntil(() => (existsSync(startedFile) ? true : undefined), 20_000, 10, 'the handler to start');
      let other: number | undefined;
      if (takeOver) {
        // Another instance's sweep and claim, as after this one's lease ran out.
        const later = new Date(Date.now() + 10 * LEASE_MS);
        await t.store.sweepExpired({ retryDelayMs: () => 0, now: later });
        const [claimed] = await t.store.claim({
          workerId: 'other',
          leaseMs: 60_000,
          groups: [{ kinds: [kind], limit: 1 }],
          now: later,
        });
        other = claimed?.version;
        assert.ok(other !== undefined && other > 1, 'another instance claimed the job');
      }
      // Past the attempt's fresh window, whatever the heartbeats did meanwhile.
      await sleep(3 * LEASE_MS);
      writeFileSync(gate, '');
      await ended;
      const ran = existsSync(ledger) ? readFileSync(ledger, 'utf8').trim().split('\n') : [];
      return { job, ran, other };
    }

    it(`${kind}: the step does not run when another attempt owns the job`, async () => {
      const { job, ran, other } = await run(true);
      assert.deepEqual(ran, [], 'step a did not run');
      const now = await t.store.getJob(job.id);
      assert.equal(now?.status, 'RUNNING');
      assert.equal(now?.version, other, "the other attempt's claim stands");
      assert.deepEqual((await t.store.jobSteps(job.id)).steps, []);
    });

    it(`${kind}: the step runs once the engine confirms the lease`, async () => {
      const { job, ran } = await run(false);
      assert.deepEqual(ran, [`${job.id} a 1`]);
      await waitUntil(async () =>
        (await t.store.getJob(job.id))?.status === 'SUCCEEDED' ? true : undefined,
      );
    });
  }
});
