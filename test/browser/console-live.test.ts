import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import { browserSkip, dock, signIn, startConversation, startHarness, transcript, type Harness } from './harness.js';
import { layoutReport, SIZES } from './page-checks.js';
import { stoppableProxy } from './stoppable-proxy.js';

// What the console shows while it waits for the server: loading is said as loading (an empty list
// never flashes before the real one), and a live stream cut by a server that went away says
// "Reconnecting…", then shows what happened meanwhile without a reload.

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({
    auth: { tokens: { 'tok-ada': { userId: 'ada' }, 'tok-bob': { userId: 'bob' }, 'tok-cat': { userId: 'cat' } } },
  });
}, 60_000);
afterAll(() => harness?.close());

async function api(method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${harness.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json();
}

/** Holds the requests `match` picks until `release()`: the server is slow to answer them. */
async function holdRequests(page: Page, match: (url: URL) => boolean) {
  const held: Route[] = [];
  let open = false;
  await page.route(
    (url) => match(url),
    (route) => (open ? route.continue() : void held.push(route)),
  );
  return {
    held: () => held.length,
    release: async () => {
      open = true;
      await Promise.all(held.splice(0).map((route) => route.continue()));
    },
  };
}

/** Notes, from the first paint, whether any of `texts` was ever on the page. */
async function watchFor(page: Page, texts: string[]) {
  await page.addInitScript((watched: string[]) => {
    const seen = new Set<string>();
    (window as unknown as { seenTexts: Set<string> }).seenTexts = seen;
    new MutationObserver(() => {
      for (const text of watched) if (document.body?.textContent?.includes(text)) seen.add(text);
    }).observe(document, { childList: true, subtree: true, characterData: true });
  }, texts);
  return () => page.evaluate(() => [...(window as unknown as { seenTexts: Set<string> }).seenTexts]);
}

describe.skipIf(browserSkip)('loading and reconnecting', { timeout: 90_000 }, () => {
  for (const size of SIZES) {
    const phone = size.width < 760;
    describe(`at ${size.width}×${size.height}`, () => {
      it('says "Loading…" while the lists and the conversation load, never "No conversations yet."', async () => {
        // bob has a conversation; cat has none.
        const { id } = await api('POST', '/api/conversations', 'tok-bob', { agent: 'refunds' });
        await api('POST', `/api/conversations/${id}/messages`, 'tok-bob', {
          content: `Refund order 5 for $5 (${size.width})`,
        });
        const context = await harness.browser.newContext({ viewport: size, baseURL: harness.url });
        context.setDefaultTimeout(10_000);
        const page = await context.newPage();
        const seen = await watchFor(page, [
          'No conversations yet.',
          'Say hello to start.',
          'Nothing is waiting on you.',
        ]);
        const list = await holdRequests(
          page,
          (url) => url.pathname === '/api/conversations' && url.searchParams.get('limit') === '100',
        );
        await signIn(page, 'tok-bob');
        if (phone) await page.getByRole('button', { name: 'Conversations' }).click();
        const sidebar = page.getByRole('navigation', { name: 'Conversations' });
        await sidebar.getByText('Loading conversations…').waitFor();
        expect(list.held()).toBeGreaterThan(0);
        await list.release();
        await sidebar.getByRole('link', { name: new RegExp(`Refund order 5 for \\$5 \\(${size.width}\\)`) }).waitFor();
        await expect.poll(() => seen()).toEqual([]);

        // The conversation itself, while its first read is held.
        const conversation = await holdRequests(page, (url) => url.pathname === `/api/conversations/${id}`);
        await sidebar.getByRole('link', { name: new RegExp(`Refund order 5 for \\$5 \\(${size.width}\\)`) }).click();
        await page.getByRole('heading', { name: 'Loading…', level: 1 }).waitFor();
        await transcript(page).getByText('Loading the conversation…').waitFor();
        await conversation.release();
        await dock(page).getByRole('heading', { name: 'Refund $5 on order 5?' }).waitFor();
        await expect.poll(() => page.getByText('Loading the conversation…').count()).toBe(0);

        // The inbox, while its stream and its list are held.
        const inbox = await holdRequests(page, (url) => url.pathname.startsWith('/api/inbox'));
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
        await page.getByRole('main').getByText('Loading…').waitFor();
        await inbox.release();
        await page.getByRole('list', { name: 'Waiting on you' }).waitFor();
        await expect.poll(() => seen()).toEqual([]);
        await context.close();

        // Someone with nothing yet is told so, once the list has come.
        const fresh = await harness.browser.newContext({ viewport: size, baseURL: harness.url });
        const empty = await fresh.newPage();
        await signIn(empty, 'tok-cat');
        if (phone) await empty.getByRole('button', { name: 'Conversations' }).click();
        await empty.getByRole('navigation', { name: 'Conversations' }).getByText('No conversations yet.').waitFor();
        await fresh.close();
      });

      it('says "Reconnecting…" while the server is away, and shows what happened meanwhile once it is back', async () => {
        const proxy = await stoppableProxy(harness.url);
        const context = await harness.browser.newContext({ viewport: size, baseURL: proxy.url });
        context.setDefaultTimeout(10_000);
        try {
          const page = await context.newPage();
          await signIn(page, 'tok-ada');
          const id = await startConversation(page, 'refunds');
          await page.getByRole('textbox', { name: 'Message' }).waitFor();
          await expect.poll(() => page.getByText('Reconnecting…').count()).toBe(0);

          await proxy.stop();
          const note = page.getByRole('status').filter({ hasText: 'Reconnecting…' });
          await note.waitFor();
          expect((await layoutReport(page)).overflowing).toEqual([]);
          // Meanwhile, elsewhere: ada asks for a refund from another device.
          const sent = await api('POST', `/api/conversations/${id}/messages`, 'tok-ada', {
            content: `Refund order 77 for $${size.width % 100}`,
          });
          expect(sent.status).toBe('requires_action');
          // The page tries the stream again while the server is away, and still says so.
          await page.waitForEvent('requestfailed', {
            predicate: (request) => request.url().includes(`/api/conversations/${id}/events/stream`),
            timeout: 20_000,
          });
          await expect.poll(() => note.isVisible()).toBe(true);

          await proxy.start();
          await note.waitFor({ state: 'detached', timeout: 20_000 });
          // Without a reload: the message sent elsewhere and the approval it raised.
          await transcript(page)
            .getByText(`Refund order 77 for $${size.width % 100}`)
            .waitFor();
          await dock(page)
            .getByRole('heading', { name: `Refund $${size.width % 100} on order 77?` })
            .waitFor();

          // The inbox page says so too, and is whole again once back.
          await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
          await page.getByRole('list', { name: 'Waiting on you' }).waitFor();
          await proxy.stop();
          await page.getByRole('main').getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor();
          await api('POST', `/api/conversations/${id}/actions/${sent.pendingActions[0].id}`, 'tok-ada', {
            resolution: { type: 'approval', decision: 'deny' },
          });
          await proxy.start();
          await page.getByRole('main').getByText('Nothing is waiting on you.').waitFor({ timeout: 40_000 });
          await expect.poll(() => page.getByText('Reconnecting…').count()).toBe(0);
        } finally {
          await context.close();
          await proxy.close();
        }
      });
    });
  }
});
