// A service and a Chromium page for the dashboard's browser suites.
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { startServer, type RunningServer, type ServerOptions } from '@nudge/server';
import { openChromium, type ChromiumSession } from './chromium.js';
import type { TestDatabase } from './databases.js';
import { FIXTURE_HANDLERS } from './engine-fixture.js';

/** A running service, the browser open beside it, and `close()` (browser, then service). */
export interface DashboardSession {
  readonly server: RunningServer;
  readonly chromium: ChromiumSession;
  readonly page: Page;
  close(): Promise<void>;
}

/**
 * Starts a service on `db` with the fixture handlers (one thread, a 100 ms poll, no log) and
 * `server`'s options over those, then headless Chromium at `viewport` (see `openChromium`).
 * @throws when either cannot start (the service is closed again if Chromium fails)
 */
export async function openDashboard(
  db: TestDatabase,
  options: { viewport?: { width: number; height: number }; server?: Partial<ServerOptions> } = {},
): Promise<DashboardSession> {
  const server = await startServer({
    databaseUrl: db.url,
    handlers: fileURLToPath(FIXTURE_HANDLERS),
    port: 0,
    threads: 1,
    pollIntervalMs: 100,
    logLevel: 'silent',
    ...options.server,
  });
  let chromium: ChromiumSession;
  try {
    chromium = await openChromium(options.viewport);
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    server,
    chromium,
    page: chromium.page,
    close: async () => {
      await chromium.close();
      await server.close();
    },
  };
}
