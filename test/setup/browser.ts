/**
 * Global set-up of the projects with browser tests: Debian's Chromium (installed when missing, see
 * prepare.ts), a fresh console build, and ONE Chromium for the whole run. Each browser test file connects
 * to it (`HEED_TEST_CHROMIUM_WS`, test/browser/harness.ts) and works in contexts of its own, instead of
 * starting a browser per file.
 */
import { chromium } from 'playwright-core';
import { onCleanup } from './cleanups.js';
import buildConsole from './console-build.js';
import { CHROMIUM, prepareChromium, say } from './prepare.js';
import runFolder from './run-folder.js';

/** Chromium's switches for this machine: headless as root, no calls home (the network is closed). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default async function setup(): Promise<() => void> {
  const teardown = runFolder();
  if (process.env.HEED_TEST_CHROMIUM_WS || process.env.HEED_TEST_SKIP_BROWSER) return teardown;
  const skip = prepareChromium();
  if (skip) {
    process.env.HEED_TEST_SKIP_BROWSER = skip;
    return teardown;
  }
  await buildConsole();
  const server = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  process.env.HEED_TEST_CHROMIUM_WS = server.wsEndpoint();
  say('started one Chromium for the browser tests.');
  onCleanup(() => {
    // Synchronous: the exit handler cannot wait. The browser server's own process is killed outright.
    server.process().kill('SIGKILL');
  });
  return teardown;
}
