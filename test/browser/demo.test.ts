import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src/cli/serve.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { browserSkip, openBrowser } from './harness.js';

// The console against `heed serve` without a config (the demo), and against one with a config.
const dir = mkdtempSync(join(tmpdir(), 'heed-browser-demo-'));
let browser: Browser;
let demo: RunningServer;
let configured: RunningServer;
// Where the screenshots go (HEED_SCREENSHOT_DIR keeps them to look at; by default they go with the temp folder).
const shots = process.env.HEED_SCREENSHOT_DIR ?? dir;

beforeAll(async () => {
  if (browserSkip) return;
  demo = await serve({ db: join(dir, 'demo.db'), port: 0, env: { HEED_DEMO_DELAY_MS: '0' }, log: () => undefined });
  configured = await serve({
    config: {
      agents: [
        {
          name: 'flaky',
          model: scriptedModel(() => {
            throw new Error('The provider is down (503).');
          }),
        },
      ],
      auth: { tokens: { 'tok-ada': 'ada' } },
    },
    db: join(dir, 'configured.db'),
    port: 0,
    env: {},
    log: () => undefined,
  });
  browser = await openBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await demo?.close();
  await configured?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(browserSkip)('signing in to the demo', { timeout: 40_000 }, () => {
  it('"Try as Ada" signs in with one click; her inbox holds the waiting requests', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: demo.url });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Try the demo' }).waitFor();
    await expect
      .poll(() => page.getByRole('button', { name: /^Try as / }).allTextContents())
      .toEqual(['Try as Ada', 'Try as Grace']);
    await page.screenshot({ path: join(shots, 'sign-in-1280.png') });
    await page.getByRole('button', { name: 'Try as Ada' }).click();
    // On a wide screen the top bar says who is signed in (the menu's copy of it is hidden).
    await page.getByRole('banner').getByText('Signed in as ada').waitFor();
    await page.getByRole('link', { name: /^Inbox/ }).click();
    for (const title of ['Refund $30 on order 42?', 'Refund $80 on order 1042?'])
      await page.getByText(title).first().waitFor();
    await context.close();
  });

  it('fits a phone: both demo buttons inside a 390 px viewport', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, baseURL: demo.url });
    const page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByRole('button', { name: 'Try as Grace' }).waitFor();
    for (const name of ['Try as Ada', 'Try as Grace']) {
      const box = (await page.getByRole('button', { name }).boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await page.screenshot({ path: join(shots, 'sign-in-390.png'), fullPage: true });
    await page.getByRole('button', { name: 'Try as Grace' }).click();
    // On a phone the top bar has no room for it: the menu says who is signed in.
    await page.getByRole('button', { name: 'Conversations', exact: true }).click();
    await page
      .getByLabel('Conversations', { exact: true })
      .getByText(/Signed in as grace/)
      .waitFor();
    await context.close();
  });

  it('a server with a config offers no demo users', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: configured.url });
    const page = await context.newPage();
    const asked = page.waitForResponse((response) => response.url().endsWith('/api/demo'));
    await page.goto('/sign-in');
    expect((await asked).status()).toBe(404);
    await page.getByLabel('Access token').waitFor();
    await expect.poll(() => page.getByRole('button', { name: /^Try as / }).count()).toBe(0);
    await expect.poll(() => page.getByRole('heading', { name: 'Try the demo' }).count()).toBe(0);
    await context.close();
  });
});

describe.skipIf(browserSkip)('a failed turn in the console', { timeout: 40_000 }, () => {
  it('says why the agent stopped, and says it again after a reload', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: configured.url });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Access token').fill('tok-ada');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Start a conversation with flaky' }).click();
    await page.waitForURL(/\/c\/[^/]+$/);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('hello');
    await box.press('Enter');
    await page.getByText('The agent stopped: The provider is down (503).').waitFor();
    await page.reload();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.getByText('The agent stopped: The provider is down (503).').waitFor();
    await page.screenshot({ path: join(shots, 'failed-turn-1280.png') });
    await context.close();
  });
});
