// The dashboard in a real browser: headless Chromium (Debian's `chromium` package) driven by
// playwright-core. Jobs run on a real service; the page must show their counts, a click on Retry
// of a failed job must make it succeed, and Cancel all / Retry all must act on the filter once
// confirmed. The screenshot goes to test/output/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { RunningServer } from '@nudge/server';
import {
  createSqliteDatabase,
  waitUntil,
  type TestDatabase,
  CHROMIUM_SKIP,
  openDashboard,
  type DashboardSession,
} from '../helpers/index.js';

/** Where the screenshot is written. */
export const SCREENSHOT = fileURLToPath(new URL('../../output/dashboard.png', import.meta.url));
/** Where the screenshot of a job's step timeline is written: the docs embed it. */
export const STEPS_SCREENSHOT = fileURLToPath(
  new URL('../../../docs/images/dashboard-steps.png', import.meta.url),
);

describe(
  'the dashboard in Chromium',
  // Locally a missing browser skips this test; in CI (CI=true) it fails it.
  { skip: CHROMIUM_SKIP },
  () => {
    let db: TestDatabase;
    let server: RunningServer;
    let dashboard: DashboardSession | undefined;
    let page: Page;
    const okFile = join(tmpdir(), `nudge-dashboard-ok-${process.pid}`);

    before(async () => {
      db = await createSqliteDatabase();
      dashboard = await openDashboard(db, { viewport: { width: 1280, height: 1400 } });
      ({ server, page } = dashboard);
    });
    after(async () => {
      await dashboard?.close();
      await db?.drop();
      rmSync(okFile, { force: true });
    });

    it('shows the counts, Retry makes a failed job succeed, and Cancel all / Retry all act on the filter', async () => {
      const { store } = server;
      const done = await store.enqueueMany(Array.from({ length: 3 }, () => ({ kind: 'noop' })));
      const failing = await store.enqueue({ kind: 'failUntilFixed', payload: { okFile }, maxAttempts: 1 });
      server.engine.requestClaim();
      await waitUntil(async () => {
        const counts = await store.countByStatus();
        return counts.SUCCEEDED === done.length && counts.FAILED === 1 ? true : undefined;
      });

      await page.goto(`${server.url}/dashboard/`);
      const count = (status: string) => page.locator(`#status-counts [data-status="${status}"] .n`);
      await page.waitForFunction("document.querySelector('#updated')?.textContent?.startsWith('updated')");
      await waitUntil(async () => ((await count('FAILED').textContent()) === '1' ? true : undefined), 10_000);
      const counts = await store.countByStatus();
      for (const status of ['SUCCEEDED', 'FAILED', 'PENDING'] as const) {
        assert.equal(
          await count(status).textContent(),
          String(counts[status]),
          `${status} as the database counts it`,
        );
      }
      const row = page.locator(`#jobs tr[data-job="${failing.id}"]`);
      assert.equal(await row.getAttribute('data-status'), 'FAILED');
      await row.locator('a').click();
      assert.match(await page.locator('#jobs tr.details').innerText(), /attempt 1 at .*not fixed yet/);

      writeFileSync(okFile, '');
      await row.locator('button.retry').click();
      await waitUntil(
        async () => ((await row.getAttribute('data-status')) === 'SUCCEEDED' ? true : undefined),
        15_000,
        100,
        'the retried job to show SUCCEEDED',
      );
      assert.equal((await store.getJob(failing.id))?.status, 'SUCCEEDED');
      await waitUntil(
        async () => ((await count('SUCCEEDED').textContent()) === '4' ? true : undefined),
        10_000,
      );

      // Cancel all, then retry all, for the filter: each asks first, naming the filter.
      const later = new Date((await store.now()).getTime() + 3_600_000);
      const parked = await store.enqueueMany(
        Array.from({ length: 3 }, () => ({ kind: 'noop', queue: 'parked', runAt: later })),
      );
      const statusesOf = async () =>
        Promise.all(parked.map(async (job) => (await store.getJob(job.id))?.status));
      await page.locator('#filters input[name="queue"]').fill('parked');
      await page.locator('#filters button[type="submit"]').click();
      const dialogs: string[] = [];
      let accept = false;
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void (accept ? dialog.accept() : dialog.dismiss());
      });
      assert.equal(
        await page.locator('#retry-all').isDisabled(),
        true,
        'retry all needs FAILED or CANCELLED',
      );
      await page.locator('#cancel-all').click();
      await waitUntil(async () => (dialogs.length === 1 ? true : undefined), 10_000);
      assert.equal(
        dialogs[0],
        'Cancel all unfinished jobs (WAITING, SCHEDULED, PENDING and RUNNING) in queue "parked"?',
      );
      assert.deepEqual(
        await statusesOf(),
        ['SCHEDULED', 'SCHEDULED', 'SCHEDULED'],
        'dismissed: nothing changed',
      );
      accept = true;
      await page.locator('#cancel-all').click();
      await waitUntil(
        async () => ((await page.locator('#bulk-result').textContent()) === 'cancelled 3' ? true : undefined),
        15_000,
      );
      assert.deepEqual(await statusesOf(), ['CANCELLED', 'CANCELLED', 'CANCELLED']);
      await page.locator('#filters select[name="status"]').selectOption('CANCELLED');
      await page.locator('#filters button[type="submit"]').click();
      assert.equal(
        await page.locator('#cancel-all').isDisabled(),
        true,
        'nothing to cancel among CANCELLED jobs',
      );
      await page.locator('#retry-all').click();
      await waitUntil(
        async () => ((await page.locator('#bulk-result').textContent()) === 'retried 3' ? true : undefined),
        15_000,
      );
      assert.equal(
        dialogs[2],
        'Retry all CANCELLED jobs in queue "parked"? They run again with fresh attempts.',
      );
      await waitUntil(
        async () => ((await statusesOf()).every((status) => status === 'SUCCEEDED') ? true : undefined),
        15_000,
        100,
        'the retried jobs to succeed',
      );

      mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      assert.ok(existsSync(SCREENSHOT));
    });

    it("shows a job's durable steps as a timeline, and what it waits for", async () => {
      const { store } = server;
      const job = await store.enqueue({ kind: 'steppedApproval' });
      server.engine.requestClaim();
      await waitUntil(
        async () => ((await store.getJob(job.id))?.status === 'WAITING' ? true : undefined),
        15_000,
      );
      await page.goto(`${server.url}/dashboard/`);
      const row = page.locator(`#jobs tr[data-job="${job.id}"]`);
      await waitUntil(async () => ((await row.count()) === 1 ? true : undefined), 10_000);
      await row.locator('a').click();
      const details = page.locator('#jobs tr.details');
      await waitUntil(
        async () => ((await details.locator('.timeline li').count()) === 3 ? true : undefined),
        10_000,
      );
      const steps = details.locator('.timeline li');
      const names: (string | null)[] = [];
      for (let i = 0; i < 3; i += 1) names.push(await steps.nth(i).getAttribute('data-step'));
      assert.deepEqual(names, ['fetch', 'cool-off', 'approve']);
      assert.match(await steps.nth(0).innerText(), /done in \d+ ms/);
      assert.match(await steps.nth(1).innerText(), /slept until/);
      assert.match(await steps.nth(2).innerText(), /waits for its signal/);
      assert.match(await details.innerText(), /waiting for\s+the signal "approve"/);
      mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
      await details.screenshot({ path: STEPS_SCREENSHOT });

      await store.sendSignal({ jobId: job.id, name: 'approve', payloadJson: '{"by":"ops"}' });
      server.engine.requestClaim();
      await waitUntil(
        async () => ((await row.getAttribute('data-status')) === 'SUCCEEDED' ? true : undefined),
        15_000,
        100,
        'the approved job to show SUCCEEDED',
      );
      await waitUntil(
        async () => (/signal received/.test(await details.innerText()) ? true : undefined),
        10_000,
      );
      assert.doesNotMatch(await details.innerText(), /waiting for/);
    });

    it("shows each queue's cluster-wide limits", async () => {
      await server.store.setQueueLimits('partner', {
        concurrency: 3,
        rateLimit: { limit: 25, intervalMs: 1_000 },
        keyConcurrency: 1,
      });
      await server.store.setQueueLimits('reports', { concurrency: 2 });
      await page.goto(`${server.url}/dashboard/`);
      const limits = (queue: string) => page.locator(`#queues tr[data-queue="${queue}"] td.limits`);
      await waitUntil(async () => ((await limits('reports').count()) === 1 ? true : undefined), 10_000);
      assert.equal(await limits('partner').textContent(), '3 at once · 25 per 1000 ms · 1 per key');
      assert.equal(await limits('reports').textContent(), '2 at once');
    });

    it("counts each queue's waiting and scheduled jobs", async () => {
      await server.store.enqueueMany([
        { kind: 'noop', queue: 'flowq', delayMs: 3_600_000 },
        { kind: 'noop', queue: 'flowq', dependsOn: [{ index: 0 }] },
      ]);
      await page.goto(`${server.url}/dashboard/`);
      const cells = page.locator('#queues tr[data-queue="flowq"] td');
      await waitUntil(async () => ((await cells.count()) > 0 ? true : undefined), 10_000);
      const headers = await page.locator('#queues thead th').allTextContents();
      const texts = await cells.allTextContents();
      assert.equal(texts[headers.indexOf('waiting')], '1');
      assert.equal(texts[headers.indexOf('scheduled')], '1');
    });

    it('lists job summaries, reads a payload when its row is expanded, and pages the queues', async () => {
      await server.store.enqueueMany(
        Array.from({ length: 60 }, (_, n) => ({
          kind: 'noop',
          queue: `paged-${String(n).padStart(2, '0')}`,
          delayMs: 3_600_000,
        })),
      );
      // The newest job, so that it is on the first page of jobs.
      const blob = 'p'.repeat(100_000);
      const [big] = await server.store.enqueueMany([
        { kind: 'noop', queue: 'bulky', payload: { blob }, delayMs: 3_600_000 },
      ]);
      assert.ok(big);
      const reads: { url: string; bytes: number }[] = [];
      const listen = (response: { url(): string; body(): Promise<Buffer> }) =>
        void response
          .body()
          .then((body) => reads.push({ url: response.url(), bytes: body.length }))
          .catch(() => undefined);
      page.on('response', listen);
      try {
        await page.goto(`${server.url}/dashboard/`);
        const row = page.locator(`#jobs tr[data-job="${big.id}"]`);
        await waitUntil(async () => ((await row.count()) === 1 ? true : undefined), 10_000);
        const isList = (read: { url: string }) => new URL(read.url).pathname === '/jobs';
        await waitUntil(async () => (reads.some(isList) ? true : undefined), 10_000);
        const lists = reads.filter(isList);
        assert.ok(lists.length > 0 && lists.every((read) => read.bytes < 50_000), JSON.stringify(lists));
        await row.locator('a').click();
        const details = page.locator('#jobs tr.details pre').first();
        await waitUntil(
          async () => ((await details.textContent())?.includes(blob) ? true : undefined),
          10_000,
        );
        assert.ok(reads.some((read) => new URL(read.url).pathname === `/jobs/${big.id}`));
        assert.ok(reads.every((read) => !read.url.includes('/stats') || read.url.endsWith('/stats?limit=0')));

        const names = async () =>
          Promise.all(
            (await page.locator('#queues tbody tr').all()).map((r) => r.getAttribute('data-queue')),
          );
        const first = await names();
        assert.equal(first.length, 50, 'one page of queues');
        await page.locator('#queues-next').click();
        await waitUntil(
          async () => ((await page.locator('#queues-page').textContent()) === 'page 2' ? true : undefined),
          10_000,
        );
        await waitUntil(async () => ((await names())[0] !== first[0] ? true : undefined), 10_000);
        const second = await names();
        assert.ok(
          second.every((name) => name !== null && !first.includes(name)),
          'the next queues',
        );
        assert.ok(second.includes('paged-59'));
        await page.locator('#queues-prev').click();
        await waitUntil(async () => ((await names())[0] === first[0] ? true : undefined), 10_000);
      } finally {
        page.off('response', listen);
      }
    });
  },
);
