// The job log panel of the dashboard in headless Chromium: a job that failed once and then
// succeeded shows the lines of both attempts (time, attempt, level, message, fields) in its
// details, and the count of lines dropped over its cap. The screenshot goes to docs/images/, which embeds it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
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

/** Where the screenshot of a job's log is written: the docs embed it. */
export const LOGS_SCREENSHOT = fileURLToPath(
  new URL('../../../docs/images/dashboard-job-logs.png', import.meta.url),
);

describe("the dashboard's job log in Chromium", { skip: CHROMIUM_SKIP }, () => {
  let db: TestDatabase;
  let server: RunningServer;
  let dashboard: DashboardSession | undefined;
  let page: Page;

  before(async () => {
    db = await createSqliteDatabase();
    dashboard = await openDashboard(db, {
      viewport: { width: 1280, height: 1000 },
      server: { engine: { logLinesPerJob: 10 } },
    });
    ({ server, page } = dashboard);
  });
  after(async () => {
    await dashboard?.close();
    await db?.drop();
  });

  it("shows a job's lines of every attempt, with their levels and fields, and the lines dropped", async () => {
    const { store } = server;
    const job = await store.enqueue({
      kind: 'asyncLogLines',
      payload: { count: 5, failUntil: 2 },
      maxAttempts: 2,
    });
    server.engine.requestClaim();
    await waitUntil(
      async () => ((await store.getJob(job.id))?.status === 'SUCCEEDED' ? true : undefined),
      60_000,
    );

    await page.goto(`${server.url}/dashboard/`);
    const row = page.locator(`#jobs tr[data-job="${job.id}"]`);
    await row.locator('a').click();
    const lines = page.locator(`[data-job-logs="${job.id}"] tr`);
    // Attempt 1: 5 info lines and a warn; attempt 2: 5 info lines and a debug, the last two over
    // the cap of 10 lines.
    await waitUntil(async () => ((await lines.count()) === 10 ? true : undefined), 10_000);
    const cells = await Promise.all(
      [0, 5, 9].map(async (n) => (await lines.nth(n).locator('td').allTextContents()).slice(1)),
    );
    assert.deepEqual(cells[0], ['#1', 'info', 'line 1 of attempt 1', '{"i":1}']);
    assert.deepEqual(cells[1], ['#1', 'warn', 'giving up this attempt', '{"attempt":1}']);
    assert.deepEqual(cells[2], ['#2', 'info', 'line 4 of attempt 2', '{"i":4}']);
    assert.equal(await page.locator(`[data-job-logs="${job.id}"] tr.log-warn`).count(), 1);
    assert.match(
      String(await page.locator(`[data-job-logs="${job.id}"] .log-note`).textContent()),
      /2 lines dropped over the job's caps/,
    );
    await page.locator('#jobs tr.details').screenshot({ path: LOGS_SCREENSHOT });
  });
});
