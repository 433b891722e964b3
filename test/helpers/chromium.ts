import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
