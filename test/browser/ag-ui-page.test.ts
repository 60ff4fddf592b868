/**
 * A CopilotKit-style page in Chromium talks to Heed over AG-UI with `@ag-ui/client` bundled for the browser
 * (test/browser/ag-ui/copilot-page.ts, built here with Vite): the run ends on an interrupt the page
 * renders as an approval card, and pressing Allow resumes it; the tool runs once and the reply streams in.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { browserSkip, newContext, serverActions, startHarness, type Harness } from './harness.js';

let harness: Harness;
let bundle: string;

/** The page's script with `@ag-ui/client` and its dependencies, as an app's bundler (Vite) would make it. */
async function build(): Promise<string> {
  const { build: viteBuild } = await import('vite');
  const result = await viteBuild({
    configFile: false,
    mode: 'production',
    logLevel: 'warn',
    root: join(import.meta.dirname, 'ag-ui'),
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      write: false,
      minify: false,
      rolldownOptions: {
        input: join(import.meta.dirname, 'ag-ui/copilot-page.ts'),
        output: { entryFileNames: 'page.js', codeSplitting: false },
      },
    },
  });
  // With `write: false` Vite returns the bundle (one per output) instead of writing it.
  const [bundle] = (Array.isArray(result) ? result : [result]) as Array<{
    output: Array<{ fileName: string; code?: string }>;
  }>;
  return bundle.output.find((chunk) => chunk.fileName === 'page.js')!.code!;
}

beforeAll(async () => {
  [harness, bundle] = await Promise.all([startHarness(), build()]);
}, 120_000);
afterAll(async () => {
  await harness?.close();
});

/** Opens the page from the Heed server's own origin (so no CORS is involved). */
async function openPage(token: string): Promise<Page> {
  const page = await (await newContext(harness)).newPage();
  await page.route(/\/ag-ui-page(\/page\.js)?(\?.*)?$/, (route) => {
    if (new URL(route.request().url()).pathname.endsWith('.js'))
      return route.fulfill({ contentType: 'text/javascript', body: bundle });
    return route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><html><head><meta charset="utf-8"><title>AG-UI</title></head><body><script type="module" src="/ag-ui-page/page.js"></script></body></html>',
    });
  });
  await page.goto(`/ag-ui-page?agent=refunds&token=${token}`);
  return page;
}

describe.skipIf(browserSkip)('a CopilotKit-style AG-UI page', { timeout: 60_000 }, () => {
  it('renders the interrupt as an approval card, and Allow resumes the run', async () => {
    const page = await openPage('tok-ada');
    await page.getByRole('textbox', { name: 'Message' }).fill('Refund order 7, $12');
    await page.getByRole('button', { name: 'Send' }).click();
    const waiting = page.getByRole('region', { name: 'Waiting for you' });
    const card = waiting.getByRole('article');
    await card.waitFor();
    await page.getByRole('status').getByText('Waiting for your answer').waitFor();
    // The streamed call the interrupt is about is in the thread.
    await page
      .getByRole('list', { name: 'Messages' })
      .getByText(/tool issue_refund .*"orderId":7/)
      .waitFor();
    const conversations = await fetch(`${harness.url}/api/conversations?agent=refunds`, {
      headers: { authorization: 'Bearer tok-ada' },
    }).then((response) => response.json());
    const id = conversations.conversations[0].id as string;
    const [pending] = await serverActions(harness, id, 'tok-ada');
    expect(pending).toMatchObject({ kind: 'approval', status: 'pending' });

    await card.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('status').getByText('Done').waitFor();
    await page
      .getByRole('list', { name: 'Messages' })
      .getByText(/^assistant: Refund done/)
      .waitFor();
    await expect.poll(() => waiting.getByRole('article').count()).toBe(0);
    expect((await serverActions(harness, id, 'tok-ada'))[0]).toMatchObject({
      id: pending.id,
      status: 'resolved',
      resolution: { decision: 'allow' },
    });
  });
});
