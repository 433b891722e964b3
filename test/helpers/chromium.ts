import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
// Without the background-networking flags Chromium calls out to the internet, which this machine refuses.
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/**
 * Debian's Chromium, headless, on a fresh temporary profile of its own (removed on close), for the browser tests
 * named by `tests`; a clear error saying how to install it when it is missing.
 */
export async function launchChromium(tests: string): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: ${tests} need Debian's chromium. Run \`npm install\` as root (scripts/provision.sh installs it) or \`apt-get update && apt-get install -y chromium\`.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/**
 * A new page of `context` whose console errors and warnings, uncaught errors and failed requests go to `report` as
 * they happen: a page test collects them and asserts none after each test.
 */
export async function watchedPage(context: BrowserContext, report: (problem: string) => void): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') report(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (err) => report(`page error: ${err.message}`));
  page.on('requestfailed', (request) => report(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
  return page;
}
