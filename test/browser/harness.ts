import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { serve, type RunningServer } from '../../src/cli/serve.js';
import type { HeedConfig } from '../../src/index.js';
import { browserAgents } from '../fixtures/browser.config.js';
import { CHROMIUM_ARGS } from '../setup/browser.js';
import { CHROMIUM } from '../setup/prepare.js';

/** Why the browser tests cannot run here (the set-up has said so in one line), or false. */
export const browserSkip = Boolean(process.env.HEED_TEST_SKIP_BROWSER);

/**
 * The run's one Chromium (started by test/setup/browser.ts), connected to once per test file; a file
 * run without that set-up launches a browser of its own. Closing what this returns disconnects from the
 * shared browser (its contexts go with it) and leaves the browser to the other files.
 */
export async function openBrowser(): Promise<Browser> {
  const endpoint = process.env.HEED_TEST_CHROMIUM_WS;
  if (endpoint) return chromium.connect(endpoint);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

export interface Harness {
  server: RunningServer;
  browser: Browser;
  url: string;
  close(): Promise<void>;
}

/** `heed serve` in-process on a loopback port (a fresh SQLite file), and the run's headless Chromium. */
export async function startHarness(config: Partial<HeedConfig> = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'heed-browser-'));
  const server = await serve({
    config: {
      agents: browserAgents,
      auth: { tokens: { 'tok-ada': { userId: 'ada' }, 'tok-bob': { userId: 'bob' } } },
      ...config,
    },
    db: join(dir, 'heed.db'),
    port: 0,
    host: '127.0.0.1',
    env: {},
    log: () => undefined,
  });
  // Each context is a fresh profile of its own, so files that share the browser share no storage.
  const browser = await openBrowser();
  return {
    server,
    browser,
    url: server.url,
    async close() {
      await browser.close().catch(() => undefined);
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A new browser context (its own storage, like another profile), 1100×800 unless told. */
export async function newContext(harness: Harness, viewport = { width: 1100, height: 800 }): Promise<BrowserContext> {
  const context = await harness.browser.newContext({ viewport, baseURL: harness.url });
  // 20 s, not 10: under a full parallel `npm test` on two cores a cold console page once took over 10 s to render.
  context.setDefaultTimeout(20_000);
  return context;
}

/** Signs in through the sign-in page, with a token or anonymously. */
export async function signIn(page: Page, token?: string): Promise<void> {
  await page.goto('/sign-in');
  if (token) {
    await page.getByLabel('Access token').fill(token);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  } else {
    await page.getByRole('button', { name: 'Continue without signing in' }).click();
  }
  await page.getByRole('heading', { name: 'Start a conversation' }).waitFor();
}

/** Starts a conversation with an agent from the home page; returns its id. */
export async function startConversation(page: Page, agent: string): Promise<string> {
  await page.getByRole('button', { name: `Start a conversation with ${agent}` }).click();
  await page.waitForURL(/\/c\/[^/]+$/);
  await page.getByRole('heading', { name: agent, level: 1 }).waitFor();
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
}

/** Types a message in the composer and sends it with Enter. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/** The dock's card for the request waiting on the person. */
export function dock(page: Page) {
  return page.getByRole('region', { name: 'Waiting for your answer' });
}

/** The transcript. */
export function transcript(page: Page) {
  return page.getByRole('list', { name: 'Messages' });
}

/** Reads the server's copy of a conversation's actions (as a signed-in user). */
export async function serverActions(harness: Harness, conversationId: string, token?: string) {
  const response = await fetch(`${harness.url}/api/conversations/${encodeURIComponent(conversationId)}/actions`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return (
    (await response.json()) as {
      actions: Array<{ id: string; status: string; resolution?: Record<string, unknown>; resolvedBy?: string }>;
    }
  ).actions;
}

/**
 * Form controls on the page that have no accessible name (no label, aria-label or aria-labelledby
 * pointing at text), described by tag and id; empty when every control is labelled.
 */
export async function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const named = (element: HTMLElement) => {
      const labels = (element as HTMLInputElement).labels;
      if (labels && Array.from(labels).some((label) => label.textContent?.trim())) return true;
      if (element.getAttribute('aria-label')?.trim()) return true;
      const ids = element.getAttribute('aria-labelledby')?.split(/\s+/).filter(Boolean) ?? [];
      if (ids.some((id) => document.getElementById(id)?.textContent?.trim())) return true;
      // A button or an ARIA radio/checkbox is named by its own text.
      return (element.tagName === 'BUTTON' || element.getAttribute('role')) && Boolean(element.textContent?.trim());
    };
    return Array.from(
      document.querySelectorAll<HTMLElement>('input, textarea, select, button, [role="radio"], [role="checkbox"]'),
    )
      .filter((element) => !named(element))
      .map((element) => `${element.tagName.toLowerCase()}#${element.id}`);
  });
}

/**
 * Presses Tab until the focused element's accessible text matches `name` (at most `limit` presses),
 * so a test shows a control can be reached with the keyboard alone.
 */
export async function tabTo(page: Page, name: RegExp, limit = 40): Promise<void> {
  for (let presses = 0; presses < limit; presses++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      if (!element) return '';
      const labelled = element.getAttribute('aria-labelledby');
      const labels = (element as HTMLInputElement).labels;
      return [
        element.getAttribute('aria-label'),
        labelled
          ? labelled
              .split(/\s+/)
              .map((id) => document.getElementById(id)?.textContent ?? '')
              .join(' ')
          : '',
        labels
          ? Array.from(labels)
              .map((label) => label.textContent)
              .join(' ')
          : '',
        element.tagName === 'BUTTON' || element.tagName === 'A' ? element.textContent : '',
      ].join(' ');
    });
    if (name.test(focused)) return;
  }
  throw new Error(`Tab never reached a control named ${name}.`);
}
