// The dashboard's flow-control views in a real browser (headless Chromium driven by
// playwright-core), on a service over each dialect: a queue's limits changed through the
// confirmation dialog (nothing sent when cancelled, the change read back through the API), a
// job's dependency graph both ways with statuses, and the job filters (status, kind, queue,
// concurrency key) kept in the page's address; and, with API keys, a read key told that a limit
// change needs admin. The SQLite run writes the screenshots the docs embed (docs/images/).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import type { RunningServer } from '@nudge/server';
import {
  DIALECTS,
  createTestDatabase,
  waitUntil,
  type TestDatabase,
  CHROMIUM_SKIP,
  openDashboard,
  type DashboardSession,
} from '../helpers/index.js';

/** The docs' screenshots, written by the SQLite run. */
export const DOC_IMAGES = fileURLToPath(new URL('../../../docs/images/', import.meta.url));

/** An hour from the database's now: jobs that stay SCHEDULED for the whole test. */
const HOUR_MS = 3_600_000;

/** What the tests read of a page element inside the page. */
interface Attributed {
  getAttribute(name: string): string | null;
}

interface QueueView {
  name: string;
  concurrency: number | null;
  rateLimit: { limit: number; intervalMs: number } | null;
  keyConcurrency: number | null;
}

for (const dialect of DIALECTS) {
  describe(
    `the dashboard's queues, dependency graph and filters in Chromium: ${dialect}`,
    { skip: CHROMIUM_SKIP },
    () => {
      let db: TestDatabase;
      let server: RunningServer;
      let dashboard: DashboardSession | undefined;
      let page: Page;
      /** Requests the page sent, as `METHOD path`. */
      const sent: string[] = [];

      before(async () => {
        db = await createTestDatabase(dialect);
        dashboard = await openDashboard(db, { viewport: { width: 1280, height: 900 } });
        ({ server, page } = dashboard);
        page.on('request', (request) => sent.push(`${request.method()} ${new URL(request.url()).pathname}`));
      });
      after(async () => {
        await dashboard?.close();
        await db?.drop();
      });

      const screenshot = async (name: string, target: Page | Locator = page) => {
        if (dialect !== 'sqlite') return;
        mkdirSync(DOC_IMAGES, { recursive: true });
        await target.screenshot({ path: join(DOC_IMAGES, name) });
      };
      const queueOverHttp = async (name: string): Promise<QueueView | undefined> => {
        const response = await fetch(`${server.url}/queues?limit=500`);
        const { queues } = (await response.json()) as { queues: QueueView[] };
        return queues.find((queue) => queue.name === name);
      };
      const textOf = async (locator: Locator, expected: string, what: string) =>
        waitUntil(
          async () => ((await locator.textContent()) === expected ? true : undefined),
          10_000,
          50,
          what,
        );

      it('changes a queue limit only once confirmed, showing old → new, and cancelling sends nothing', async () => {
        const { store } = server;
        await store.setQueueLimits('partner', { concurrency: 3, keyConcurrency: 1 });
        const later = new Date((await store.now()).getTime() + HOUR_MS);
        await store.enqueueMany(
          Array.from({ length: 4 }, () => ({ kind: 'noop', queue: 'partner', runAt: later })),
        );
        await page.goto(`${server.url}/dashboard/`);
        const row = page.locator('#queues tr[data-queue="partner"]');
        await textOf(row.locator('td.limits'), '3 at once · 1 per key', 'the queue with its limits');
        assert.equal(await row.locator('td.running').textContent(), '0 / 3', 'running against the limit');
        const dialog = page.locator('#limits-dialog');
        const review = dialog.locator('.review');

        // Edit, review, then cancel: nothing is sent and nothing changes.
        await row.locator('button.edit-limits').click();
        assert.equal(await dialog.isVisible(), true);
        assert.equal(await dialog.locator('input[name="concurrency"]').inputValue(), '3');
        assert.equal(await dialog.locator('input[name="keyConcurrency"]').inputValue(), '1');
        await dialog.locator('input[name="concurrency"]').fill('8');
        await dialog.locator('button.review-changes').click();
        assert.equal(await review.isVisible(), true);
        assert.deepEqual(await review.locator('li').allTextContents(), ['concurrency 3 at once → 8 at once']);
        await review.locator('button.cancel').click();
        assert.equal(await dialog.isVisible(), false);
        assert.equal(sent.filter((request) => request.startsWith('PATCH')).length, 0, 'no PATCH was sent');
        assert.equal((await queueOverHttp('partner'))?.concurrency, 3, 'cancelled: the limit is as it was');

        // A bad value is refused in the dialog, naming the field, before any review.
        await row.locator('button.edit-limits').click();
        await dialog.locator('input[name="rateLimit"]').fill('10');
        await dialog.locator('button.review-changes').click();
        assert.match(
          (await dialog.locator('.problem').textContent()) ?? '',
          /a rate limit needs both a number of starts and a window in ms/,
        );
        assert.equal(await review.isVisible(), false);

        // Edit, review, confirm: one PATCH with the changed fields, read back through the API.
        await dialog.locator('input[name="concurrency"]').fill('5');
        await dialog.locator('input[name="intervalMs"]').fill('1000');
        await dialog.locator('input[name="keyConcurrency"]').fill('');
        await dialog.locator('button.review-changes').click();
        assert.deepEqual(await review.locator('li').allTextContents(), [
          'concurrency 3 at once → 5 at once',
          'rateLimit none → 10 per 1000 ms',
          'keyConcurrency 1 per key → none',
        ]);
        assert.equal(
          sent.filter((request) => request.startsWith('PATCH')).length,
          0,
          'nothing sent while reviewing',
        );
        await screenshot('dashboard-queues.png');
        await review.locator('button.confirm').click();
        await waitUntil(async () => ((await dialog.isVisible()) ? undefined : true), 10_000);
        assert.deepEqual(
          sent.filter((request) => request.startsWith('PATCH')),
          ['PATCH /queues/partner'],
        );
        const changed = await queueOverHttp('partner');
        assert.deepEqual(
          {
            concurrency: changed?.concurrency,
            rateLimit: changed?.rateLimit,
            keyConcurrency: changed?.keyConcurrency,
          },
          { concurrency: 5, rateLimit: { limit: 10, intervalMs: 1000 }, keyConcurrency: null },
        );
        await textOf(row.locator('td.limits'), '5 at once · 10 per 1000 ms', 'the new limits in the table');
        assert.equal(await row.locator('td.running').textContent(), '0 / 5');
      });

      it('draws a job’s dependency graph both ways with statuses, from the address or a click', async () => {
        const { store } = server;
        const later = new Date((await store.now()).getTime() + HOUR_MS);
        const [up2, up1, held, center, down1, down2, down3] = await store.enqueueMany([
          { kind: 'noop', queue: 'flows' },
          { kind: 'noop', queue: 'flows', dependsOn: [{ index: 0 }] },
          { kind: 'noop', queue: 'flows', runAt: later },
          { kind: 'noop', queue: 'flows', dependsOn: [{ index: 1 }, { index: 2 }] },
          { kind: 'noop', queue: 'flows', dependsOn: [{ index: 3 }] },
          { kind: 'noop', queue: 'flows', dependsOn: [{ index: 3 }], onDependencyFailure: 'run' },
          { kind: 'noop', queue: 'flows', dependsOn: [{ index: 4 }] },
        ]);
        assert.ok(up2 && up1 && held && center && down1 && down2 && down3);
        server.engine.requestClaim();
        await waitUntil(
          async () => ((await store.getJob(up1.id))?.status === 'SUCCEEDED' ? true : undefined),
          15_000,
          50,
          'the upstream chain to succeed',
        );

        await page.goto(`${server.url}/dashboard/?job=${center.id}`);
        const panel = page.locator('#dependencies');
        const node = (id: number) => panel.locator(`g.node[data-job="${id}"]`);
        await waitUntil(async () => ((await node(down3.id).count()) === 1 ? true : undefined), 10_000);
        assert.equal(await panel.isVisible(), true);
        const expected: Array<[number, string, string]> = [
          [up2.id, '-2', 'SUCCEEDED'],
          [up1.id, '-1', 'SUCCEEDED'],
          [held.id, '-1', 'SCHEDULED'],
          [center.id, '0', 'WAITING'],
          [down1.id, '1', 'WAITING'],
          [down2.id, '1', 'WAITING'],
          [down3.id, '2', 'WAITING'],
        ];
        for (const [id, level, status] of expected) {
          assert.equal(await node(id).getAttribute('data-level'), level, `job ${id}'s level`);
          assert.equal(await node(id).getAttribute('data-status'), status, `job ${id}'s status`);
        }
        assert.equal(await panel.locator('g.node').count(), expected.length);
        // Read in one evaluation: the panel redraws at every refresh of the page.
        const edges = await panel
          .locator('path.edge')
          .evaluateAll((paths: readonly Attributed[]) =>
            paths.map((path) => `${path.getAttribute('data-from')}->${path.getAttribute('data-to')}`),
          );
        assert.deepEqual(
          edges.sort(),
          [
            `${up2.id}->${up1.id}`,
            `${up1.id}->${center.id}`,
            `${held.id}->${center.id}`,
            `${center.id}->${down1.id}`,
            `${center.id}->${down2.id}`,
            `${down1.id}->${down3.id}`,
          ].sort(),
        );
        assert.match(
          (await panel.locator('.title').textContent()) ?? '',
          new RegExp(`job #${center.id} \\(noop, WAITING\\)`),
        );
        await screenshot('dashboard-dependency-graph.png', panel);

        // A click on a job shows its own graph, and the address follows.
        await node(down1.id).click();
        await waitUntil(
          async () => ((await panel.getAttribute('data-job')) === String(down1.id) ? true : undefined),
          10_000,
        );
        assert.equal(new URL(page.url()).searchParams.get('job'), String(down1.id));
        assert.equal(await node(center.id).getAttribute('data-level'), '-1');
        assert.equal(await node(down3.id).getAttribute('data-level'), '1');
        assert.equal(await node(down2.id).count(), 0, 'a sibling is not a dependency');

        // The held dependency is cancelled: the graph shows where each job went.
        assert.equal((await fetch(`${server.url}/jobs/${held.id}/cancel`, { method: 'POST' })).status, 200);
        await page.goto(`${server.url}/dashboard/?job=${center.id}`);
        await waitUntil(
          async () => ((await node(down2.id).getAttribute('data-status')) === 'SUCCEEDED' ? true : undefined),
          15_000,
          100,
          'the run-anyway dependent to run',
        );
        assert.equal(await node(center.id).getAttribute('data-status'), 'CANCELLED');
        assert.equal(await node(down1.id).getAttribute('data-status'), 'CANCELLED');
        await page.goto(`${server.url}/dashboard/?job=999999`);
        await textOf(panel.locator('.graph'), 'No job has id 999999.', 'an unknown job said so');
        await page.goto(`${server.url}/dashboard/?job=${center.id}`);
        await waitUntil(async () => ((await node(center.id).count()) === 1 ? true : undefined), 10_000);
        await panel.locator('button.close').click();
        assert.equal(await panel.isVisible(), false);
        assert.equal(new URL(page.url()).searchParams.get('job'), null);

        // The Graph button of a listed job opens the panel.
        await page.locator(`#jobs tr[data-job="${up1.id}"] button.graph`).click();
        await waitUntil(
          async () => ((await panel.getAttribute('data-job')) === String(up1.id) ? true : undefined),
          10_000,
        );
        assert.equal(await node(up2.id).getAttribute('data-level'), '-1');
        assert.equal(await node(center.id).getAttribute('data-level'), '1');
      });

      it('filters jobs by status, kind, queue and concurrency key, and keeps the filter in the address', async () => {
        const { store } = server;
        const later = new Date((await store.now()).getTime() + HOUR_MS);
        const jobs = await store.enqueueMany([
          { kind: 'noop', queue: 'tenants', concurrencyKey: 'acme', runAt: later },
          { kind: 'noop', queue: 'tenants', concurrencyKey: 'globex', runAt: later },
          { kind: 'echo', queue: 'tenants', concurrencyKey: 'acme', runAt: later },
          { kind: 'noop', queue: 'tenants', concurrencyKey: 'acme', runAt: later },
          { kind: 'noop', queue: 'other', concurrencyKey: 'acme', runAt: later },
        ]);
        const [acme1, , acmeEcho, acme2, acmeOther] = jobs.map((job) => job.id);
        await page.goto(`${server.url}/dashboard/`);
        const form = page.locator('#filters');
        // Read in one evaluation: the list is drawn again at every refresh of the page.
        const listed = async () =>
          page
            .locator('#jobs tbody tr[data-job]')
            .evaluateAll((rows: readonly Attributed[]) => rows.map((row) => row.getAttribute('data-job')));
        const until = async (ids: Array<number | undefined>) =>
          waitUntil(
            async () =>
              JSON.stringify(await listed()) === JSON.stringify(ids.map(String)) ? true : undefined,
            10_000,
            50,
            `the list to show ${ids.join(', ')}`,
          );

        await form.locator('select[name="status"]').selectOption('SCHEDULED');
        await form.locator('input[name="queue"]').fill('tenants');
        await form.locator('input[name="concurrencyKey"]').fill('acme');
        await form.locator('button[type="submit"]').click();
        await until([acme2, acmeEcho, acme1]);
        const address = new URL(page.url()).searchParams;
        assert.deepEqual(
          [address.get('status'), address.get('queue'), address.get('concurrencyKey'), address.get('kind')],
          ['SCHEDULED', 'tenants', 'acme', null],
        );
        assert.equal(await page.locator('#retry-all').isDisabled(), true);
        assert.equal(
          await page.locator('#cancel-all').isDisabled(),
          true,
          'bulk commands take no concurrency key',
        );
        assert.equal(
          await page.locator('#filter-summary').textContent(),
          'Showing SCHEDULED jobs in queue "tenants" with concurrency key "acme", newest first.',
        );
        await screenshot('dashboard-filters.png', page.locator('section:has(#filters)'));

        await form.locator('input[name="kind"]').fill('noop');
        await form.locator('button[type="submit"]').click();
        await until([acme2, acme1]);
        const shared = page.url();
        // Back: the filter before, without the kind, in the list and the form.
        await page.goBack();
        await until([acme2, acmeEcho, acme1]);
        assert.equal(await form.locator('input[name="kind"]').inputValue(), '');

        // The address is the view: a fresh load shows the same filter, filled in.
        await page.goto('about:blank');
        await page.goto(shared);
        await until([acme2, acme1]);
        assert.equal(await form.locator('input[name="kind"]').inputValue(), 'noop');
        assert.equal(await form.locator('input[name="concurrencyKey"]').inputValue(), 'acme');
        await page.goto(`${server.url}/dashboard/?concurrencyKey=acme&status=SCHEDULED`);
        await until([acmeOther, acme2, acmeEcho, acme1]);
        await page.locator('#clear-filters').click();
        await waitUntil(async () => (new URL(page.url()).search === '' ? true : undefined), 10_000);
        assert.equal(await form.locator('input[name="concurrencyKey"]').inputValue(), '');
      });
    },
  );
}

describe('the queue limits dialog with API keys, in Chromium', { skip: CHROMIUM_SKIP }, () => {
  const READ_KEY = 'dashboard-read-key-0123456789';
  const ADMIN_KEY = 'dashboard-admin-key-0123456789';
  let db: TestDatabase;
  let server: RunningServer;
  let dashboard: DashboardSession | undefined;
  before(async () => {
    db = await createTestDatabase('sqlite');
    dashboard = await openDashboard(db, { server: { apiKeys: `${READ_KEY}:read,${ADMIN_KEY}:admin` } });
    server = dashboard.server;
  });
  after(async () => {
    await dashboard?.close();
    await db?.drop();
  });

  it('with a read key the dialog says admin is needed and nothing changes; an admin key changes it', async () => {
    await server.store.setQueueLimits('partner', { concurrency: 3 });
    const page = dashboard?.page;
    assert.ok(page, 'Chromium started');
    await page.goto(`${server.url}/dashboard/`);
    const useKey = async (key: string) => {
      await page.locator('#api-key').fill(key);
      await page.locator('#key-form button[type="submit"]').click();
    };
    await useKey(READ_KEY);
    const row = page.locator('#queues tr[data-queue="partner"]');
    await waitUntil(async () => ((await row.count()) === 1 ? true : undefined), 10_000);
    const dialog = page.locator('#limits-dialog');
    const change = async () => {
      await row.locator('button.edit-limits').click();
      await dialog.locator('input[name="concurrency"]').fill('4');
      await dialog.locator('button.review-changes').click();
      await dialog.locator('.review button.confirm').click();
    };
    await change();
    await waitUntil(
      async () =>
        /admin scope/.test((await dialog.locator('.problem').textContent()) ?? '') ? true : undefined,
      10_000,
      50,
      'the dialog to say the key needs admin',
    );
    assert.equal(await dialog.isVisible(), true, 'the dialog stays open');
    assert.equal((await server.store.listQueues({ recordedOnly: true }))[0]?.concurrency, 3);
    await dialog.locator('.review button.cancel').click();

    await useKey(ADMIN_KEY);
    await change();
    await waitUntil(async () => ((await dialog.isVisible()) ? undefined : true), 10_000);
    assert.equal((await server.store.listQueues({ recordedOnly: true }))[0]?.concurrency, 4);
  });
});
