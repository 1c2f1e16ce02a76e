// Headless Chromium for the dashboard's browser tests: Debian's `chromium` package driven by
// playwright-core, with a fresh profile per suite.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Where Debian's package puts Chromium; `.ci/run` installs it when missing. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * The `skip` option of a browser suite: it runs when Chromium is installed, and always under
 * `CI=true`, where a missing browser must fail rather than skip.
 */
export const CHROMIUM_SKIP: string | false =
  existsSync(CHROMIUM) || process.env.CI === 'true' ? false : `${CHROMIUM} is missing`;

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** An open browser: its context, its first page, and `close()` (browser, then the profile). */
export interface ChromiumSession {
  readonly browser: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

/**
 * Starts headless Chromium on a fresh profile (playwright passes it as `--user-data-dir`).
 * @param viewport the page's size in CSS pixels; playwright's default when absent
 * @throws when Chromium cannot start (missing, or refused by the host)
 */
export async function openChromium(viewport?: { width: number; height: number }): Promise<ChromiumSession> {
  const profile = mkdtempSync(join(tmpdir(), 'nudge-chromium-'));
  try {
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: CHROMIUM_FLAGS,
      ...(viewport ? { viewport } : {}),
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    return {
      browser,
      page,
      close: async () => {
        await browser.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
