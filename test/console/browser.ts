// Drives Debian's Chromium (/usr/bin/chromium, `apt-get install chromium`) through
// playwright-core — never a downloaded browser — with a fresh profile per launch, and
// saves screenshots under test-output/console/ for a person to look at.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// dist/test/console → <repo>/test-output/console
export const SCREENSHOT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test-output', 'console');

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Saves a full-page PNG as test-output/console/<name>.png. */
  screenshot(name: string, page?: Page): Promise<void>;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1280, height: 860 }): Promise<Browser> {
  // Playwright refuses --user-data-dir in args; a persistent context on a fresh
  // temporary directory is the same thing: a clean profile, removed on close.
  const profile = mkdtempSync(join(tmpdir(), 'conifer-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    timeout: 30_000,
  });
  context.setDefaultTimeout(15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    context,
    page,
    screenshot: async (name, p = page) => {
      await p.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
