// The `nudge` commands, spawned from the build output against a real database of each dialect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '@nudge/store';
import { DIALECTS, createTestDatabase, openStore, rawQuery, type TestDatabase } from '../helpers/index.js';
import { jsonOf, runCli } from './run-cli.js';

for (const dialect of DIALECTS) {
  describe(`nudge commands: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    let env: NodeJS.ProcessEnv;
    const nudge = (...args: string[]) => runCli(args, env);

    before(async () => {
      db = await createTestDatabase(dialect);
      env = { DATABASE_URL: db.url, NUDGE_LEASE_MS: '60000' };
    });
    after(async () => {
      await store?.close();
      await db.drop();
    });

    it('migrate status, migrate, migrate status --json', async () => {
      const before = await nudge('migrate', 'status');
      assert.equal(before.code, 0);
      assert.match(before.stdout, /^schema version 0 of \d+: \d+ pending \(1, 2, .*\); run nudge migrate\n$/);
      const refused = await nudge('list');
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /^nudge: the database has schema version 0 of \d+: run nudge migrate first\n$/,
      );
      const applied = await nudge('migrate');
      assert.equal(applied.code, 0, applied.stderr);
      assert.match(applied.stdout, /^applied migrations 1, 2, .*; the schema is at version \d+\n$/);
      const status = jsonOf(await nudge('migrate', 'status', '--json'));
      assert.equal(status.applied, status.latest);
      assert.deepEqual(status.pending, []);
      assert.match((await nudge('migrate')).stdout, /nothing to apply/);
      store = await openStore(db);
    });

    it('enqueue one job with every option, then status and status --json', async () => {
      const run = await nudge(
        'enqueue',
        'sendEmail',
        '{"to":"a@b.c"}',
        '--queue',
        'emails',
        '--priority',
        '-5',
        '--max-attempts',
        '3',
        '--delay-ms',
        '60000',
        '--idempotency-key',
        'k1',
      );
      assert.equal(run.code, 0, run.stderr);
      const id = Number(
        /^enqueued job (\d+) \(sendEmail, queue emails, SCHEDULED\)\n$/.exec(run.stdout)?.[1],
      );
      const again = await nudge('enqueue', 'sendEmail', '--idempotency-key', 'k1');
      assert.match(again.stdout, new RegExp(`^job ${id} exists under that idempotency key`));
      const job = jsonOf(await nudge('status', String(id), '--json'));
      assert.deepEqual(
        [
          job.id,
          job.kind,
          job.queue,
          job.status,
          job.priority,
          job.maxAttempts,
          job.payload,
          job.idempotencyKey,
        ],
        [id, 'sendEmail', 'emails', 'SCHEDULED', -5, 3, { to: 'a@b.c' }, 'k1'],
      );
      const row = await store.getJob(id);
      assert.equal(job.runAt, row?.runAt.toISOString());
      const human = await nudge('status', String(id));
      assert.match(human.stdout, /^id {15}\d+\nkind {13}sendEmail\n/);
      assert.match(human.stdout, /\nattempts {9}0 of 3\n/);
      const missing = await nudge('status', '999999');
      assert.equal(missing.code, 1);
      assert.equal(
        missing.stderr,
        'nudge: no job has id 999999: check the id (nudge list shows the newest)\n',
      );
    });

    it('enqueue --throttle and --debounce: the window job and the waiting job are named; bad values exit 1', async () => {
      const first = await nudge(
        'enqueue',
        'throttled',
        '{"n":1}',
        '--queue',
        'emails',
        '--throttle',
        'acct/7/3600000',
      );
      assert.equal(first.code, 0, first.stderr);
      const id = Number(
        /^enqueued job (\d+) \(throttled, queue emails, PENDING\)\n$/.exec(first.stdout)?.[1],
      );
      const again = await nudge('enqueue', 'throttled', '{"n":2}', '--throttle', 'acct/7/3600000');
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, new RegExp(`^job ${id} holds the open throttle window of that key`));
      assert.equal(jsonOf(await nudge('status', String(id), '--json')).throttleKey, 'acct/7');
      assert.match((await nudge('status', String(id))).stdout, /\nthrottle key +acct\/7\n/);

      const waiting = await nudge(
        'enqueue',
        'debounced',
        '{"n":1}',
        '--queue',
        'emails',
        '--debounce',
        'doc-1/60000',
      );
      assert.equal(waiting.code, 0, waiting.stderr);
      const digest = Number(
        /^enqueued job (\d+) \(debounced, queue emails, SCHEDULED\)\n$/.exec(waiting.stdout)?.[1],
      );
      const moved = await nudge('enqueue', 'debounced', '{"n":2}', '--debounce', 'doc-1/60000');
      assert.match(
        moved.stdout,
        new RegExp(`^job ${digest} waits under that debounce key .*: its payload was replaced`),
      );
      assert.deepEqual((await store.getJob(digest))?.payload, { n: 2 });

      for (const [args, message] of [
        [
          ['--throttle', 'nokey'],
          /^nudge: --throttle takes KEY\/WINDOW_MS, such as customer-42\/60000 \(got "nokey"\)\n$/,
        ],
        [
          ['--debounce', 'k/0'],
          /^nudge: INVALID_REQUEST: \/debounce\/delayMs must be a whole number of ms from 1 to 31536000000/,
        ],
        [['--debounce', 'k/5', '--delay-ms', '5'], /\/debounce and \/delayMs cannot both be given/],
      ] as const) {
        const refused = await nudge('enqueue', 'debounced', ...args);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, message);
      }
    });

    it('list with filters, --json pages with nextCursor, and aligned columns', async () => {
      for (let i = 0; i < 3; i += 1) assert.equal((await nudge('enqueue', 'echo', `{"i":${i}}`)).code, 0);
      const first = jsonOf(await nudge('list', '--kind', 'echo', '--limit', '2', '--json'));
      const jobs = first.jobs as Array<{ id: number; payload: { i: number } }>;
      assert.deepEqual(
        jobs.map((j) => j.payload.i),
        [2, 1],
      );
      assert.equal(first.nextCursor, String(jobs[1]?.id));
      const second = jsonOf(
        await nudge('list', '--kind', 'echo', '--limit', '2', '--cursor', String(first.nextCursor), '--json'),
      );
      assert.deepEqual(
        (second.jobs as Array<{ payload: { i: number } }>).map((j) => j.payload.i),
        [0],
      );
      assert.equal(second.nextCursor, null);
      const human = await nudge('list', '--status', 'pending', '--queue', 'default');
      const lines = human.stdout.trimEnd().split('\n');
      assert.match(lines[0] ?? '', /^ID\s+KIND\s+QUEUE\s+STATUS\s+ATTEMPTS\s+RUN AT\s+LAST ERROR$/);
      assert.equal(lines.length, 4, 'the header and the three echo jobs');
      const statusColumn = (lines[0] ?? '').indexOf('STATUS');
      for (const line of lines.slice(1)) assert.equal(line.slice(statusColumn, statusColumn + 7), 'PENDING');
    });

    it('cancel, retry, and their refusals', async () => {
      const [job] = await store.listJobs({ kind: 'echo', limit: 1 });
      const id = String(job?.id);
      const cancelled = await nudge('cancel', id);
      assert.equal(cancelled.stdout, `job ${id} cancelled (was PENDING, now CANCELLED)\n`);
      const twice = await nudge('cancel', id);
      assert.equal(twice.code, 1);
      assert.equal(
        twice.stderr,
        `nudge: job ${id} is CANCELLED: only WAITING, SCHEDULED, PENDING or RUNNING jobs can be cancelled\n`,
      );
      const retried = await nudge('retry', id);
      assert.match(retried.stdout, new RegExp(`^job ${id} retried \\(was CANCELLED, now PENDING\\)`));
      assert.equal((await store.getJob(Number(id)))?.status, 'PENDING');
      assert.equal((await nudge('retry', id)).code, 1);
    });

    it('cancel and retry with filters act on every matching job and print the count', async () => {
      await store.enqueueMany([
        { kind: 'bulk', queue: 'bulkq' },
        { kind: 'bulk', queue: 'bulkq' },
        { kind: 'bulk-other', queue: 'bulkq' },
      ]);
      const cancelled = await nudge('cancel', '--queue', 'bulkq', '--status', 'pending,scheduled');
      assert.equal(cancelled.stderr, '');
      assert.equal(cancelled.stdout, 'cancelled 3 jobs\n');
      assert.equal((await store.listJobs({ queue: 'bulkq', status: 'CANCELLED', limit: 10 })).length, 3);
      const retried = await nudge('retry', '--status', 'cancelled', '--kind', 'bulk', '--queue', 'bulkq');
      assert.equal(
        retried.stdout,
        'retried 2 jobs; a running service claims them within one poll interval\n',
      );
      assert.deepEqual(jsonOf(await nudge('retry', '--status', 'CANCELLED', '--queue', 'bulkq', '--json')), {
        retried: 1,
        isolated: 0,
      });
      assert.deepEqual(jsonOf(await nudge('cancel', '--queue', 'bulkq', '--limit', '2', '--json')), {
        cancelled: 2,
        isolated: 0,
      });
      assert.equal((await store.listJobs({ queue: 'bulkq', status: 'PENDING', limit: 10 })).length, 1);
      // The later cases count the jobs and queues of the cases before this one.
      await rawQuery(db, "DELETE FROM nudge_jobs WHERE queue = 'bulkq'");
    });

    it('cancel and retry refuse an id with filters, neither, and bad filters, changing nothing', async () => {
      const before = await store.countByStatus();
      const refusals: [string[], RegExp][] = [
        [
          ['cancel', '7', '--queue', 'bulkq'],
          /^nudge: give a job id or filters, not both \(got 7 and --queue\)/,
        ],
        [
          ['cancel'],
          /^nudge: give a job id, or filters for every matching job: nudge cancel <id>, or nudge cancel --queue emails\n$/,
        ],
        [
          ['retry', '--kind', 'bulk'],
          /^nudge: say which jobs to retry with --status FAILED or --status CANCELLED/,
        ],
        [['retry', '--status', 'RUNNING'], /--status.*must be one of FAILED, CANCELLED/],
        [
          ['cancel', '--status', 'PENDING,DONE'],
          /--status.*must be one or more of WAITING, SCHEDULED, PENDING, RUNNING/,
        ],
        [['cancel', '--queue', 'bulkq', '--limit', '0'], /--limit.*must be a whole number/],
        [['cancel', '--created-after', 'today'], /--created-after.*must be a date-time/],
        [
          [
            'retry',
            '--status',
            'FAILED',
            '--finished-after',
            '2030-01-02T00:00:00Z',
            '--finished-before',
            '2030-01-01T00:00:00Z',
          ],
          /^nudge: INVALID_REQUEST: finishedAfter must be earlier than finishedBefore/,
        ],
      ];
      for (const [args, message] of refusals) {
        const run = await nudge(...args);
        assert.notEqual(run.code, 0, args.join(' '));
        assert.match(run.stderr, message, args.join(' '));
        assert.equal(run.stderr.trimEnd().split('\n').length, 1, `one line: ${run.stderr}`);
        assert.equal(run.stdout, '');
      }
      assert.deepEqual(await store.countByStatus(), before);
    });

    it('sweep recovers an expired lease and prints the counts', async () => {
      const [claimed] = await store.claim({
        workerId: 'gone',
        leaseMs: 60_000,
        groups: [{ kinds: ['echo'], limit: 1 }],
      });
      assert.ok(claimed);
      // The instance stopped heartbeating a minute ago: its lease ran out.
      const now = await store.now();
      await store.heartbeat(
        [{ id: claimed.id, version: claimed.version }],
        1000,
        new Date(now.getTime() - 60_000),
      );
      const run = await nudge('sweep');
      assert.equal(run.code, 0, run.stderr);
      assert.equal(
        run.stdout,
        'swept expired leases: 1 job back to wait for a retry, 0 failed (attempts used up)\n',
      );
      assert.deepEqual(jsonOf(await nudge('sweep', '--json')), {
        requeued: 0,
        failed: 0,
        isolated: 0,
        passes: 1,
      });
    });

    it('stats and stats --json agree with the database', async () => {
      const now = await store.now();
      await store.registerInstance(
        { id: 'w1', host: 'h', pid: 1, kinds: ['echo'], version: '0.1.0', slots: { cpu: 2 } },
        now,
      );
      const stats = jsonOf(await nudge('stats', '--json'));
      const rows = await rawQuery<{ status: string; n: number | string }>(
        db,
        'SELECT status, count(*) AS n FROM nudge_jobs GROUP BY status',
      );
      const byStatus = stats.byStatus as Record<string, number>;
      for (const row of rows) assert.equal(byStatus[row.status], Number(row.n), row.status);
      assert.equal(
        Object.values(byStatus).reduce((a, b) => a + b, 0),
        rows.reduce((a, r) => a + Number(r.n), 0),
      );
      const kinds = await rawQuery<{ kind: string; n: number | string }>(
        db,
        'SELECT kind, count(*) AS n FROM nudge_jobs GROUP BY kind',
      );
      const byKind = stats.byKind as Record<string, Record<string, number>>;
      for (const row of kinds)
        assert.equal(
          Object.values(byKind[row.kind] ?? {}).reduce((a, b) => a + b, 0),
          Number(row.n),
        );
      assert.deepEqual(Object.keys(stats.byQueue as object).sort(), ['default', 'emails']);
      assert.equal(typeof stats.oldestPendingAgeMs, 'number');
      assert.deepEqual(stats.lastHour, { succeeded: 0, failed: 0 });
      assert.equal(stats.failureRateLastHour, null);
      assert.deepEqual(
        (stats.instances as Array<{ id: string; slots: unknown }>).map((i) => [i.id, i.slots]),
        [['w1', { cpu: 2 }]],
      );
      const human = await nudge('stats');
      assert.match(
        human.stdout,
        /^JOBS +WAITING +SCHEDULED +PENDING +RUNNING +SUCCEEDED +FAILED +CANCELLED +TOTAL\nall /,
      );
      assert.match(human.stdout, /\nlive instances: +1\n/);
      assert.match(human.stdout, /\nw1 +0\.1\.0 +echo +\* +cpu 2 /);
    });

    it('schedules and schedules --json list the registered schedules', async () => {
      assert.match(
        (await nudge('schedules')).stdout,
        /^no schedules: declare them in the handler module or NUDGE_SCHEDULES\n$/,
      );
      const now = new Date('2026-05-01T10:00:00.000Z');
      await store.registerSchedules(
        [{ name: 'nightly', cron: '0 3 * * *', timezone: 'Europe/Paris', kind: 'report' }],
        now,
      );
      await store.advanceSchedule({
        name: 'nightly',
        tickAt: now,
        nextTickAt: new Date('2026-05-02T01:00:00.000Z'),
      });
      assert.deepEqual(jsonOf(await nudge('schedules', '--json')), {
        schedules: [
          {
            name: 'nightly',
            cron: '0 3 * * *',
            timezone: 'Europe/Paris',
            kind: 'report',
            lastTickAt: '2026-05-01T10:00:00.000Z',
            nextTickAt: '2026-05-02T01:00:00.000Z',
            updatedAt: (
              jsonOf(await nudge('schedules', '--json')).schedules as Array<{ updatedAt: string }>
            )[0]?.updatedAt,
          },
        ],
      });
      const human = await nudge('schedules');
      assert.match(
        human.stdout,
        /^NAME +CRON +TIMEZONE +KIND +LAST TICK +NEXT TICK\nnightly +0 3 \* \* \* +Europe\/Paris +report +2026-05-01T10:00:00.000Z +2026-05-02T01:00:00.000Z\n$/,
      );
    });

    it('prune deletes the finished jobs the retention allows, and prune --json', async () => {
      const cancelled = await store.enqueue({ kind: 'old' });
      assert.equal(
        (await store.cancelJob(cancelled.id, new Date((await store.now()).getTime() - 7_200_000))).outcome,
        'changed',
      );
      const recent = await store.enqueue({ kind: 'recent' });
      await store.cancelJob(recent.id);
      const count = async () =>
        Number(
          (
            await rawQuery<{ n: number | string }>(
              db,
              `SELECT count(*) AS n FROM nudge_jobs WHERE status = 'CANCELLED'`,
            )
          )[0]?.n,
        );
      const before = await count();
      // The default keeps cancelled jobs 14 days.
      const kept = await nudge('prune');
      assert.equal(kept.code, 0, kept.stderr);
      assert.match(
        kept.stdout,
        /^pruned 0 finished jobs \(0 succeeded, 0 failed, 0 cancelled\) in \d+ batch(es)?; retention SUCCEEDED=1d,FAILED=14d,CANCELLED=14d\n$/,
      );
      const run = jsonOf(await nudge('prune', '--retention', 'CANCELLED=1h', '--json'));
      assert.deepEqual(run.byStatus, { SUCCEEDED: 0, FAILED: 0, CANCELLED: 1 });
      assert.equal(run.retention, 'SUCCEEDED=1d,FAILED=14d,CANCELLED=1h');
      assert.equal(await count(), before - 1);
      assert.equal(await store.getJob(cancelled.id), undefined);
      assert.equal((await store.getJob(recent.id))?.status, 'CANCELLED');
      const env2 = await runCli(['prune', '--json'], { ...env, NUDGE_RETENTION: 'CANCELLED=0' });
      assert.equal(jsonOf(env2).deleted, before - 1, 'NUDGE_RETENTION applies');
      assert.equal(await store.getJob(recent.id), undefined);
    });
  });
}
