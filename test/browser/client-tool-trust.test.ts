import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserSkip,
  dock,
  newContext,
  sendMessage,
  serverActions,
  signIn,
  startConversation,
  startHarness,
  transcript,
  type Harness,
} from './harness.js';

// Page tools in the console run on their own only in the viewer's own conversations (issue 11, item 10).
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

/** Selects the text of the first element matching `selector`, as a person would with the mouse. */
async function select(page: Page, selector: string): Promise<string> {
  return page
    .locator(selector)
    .first()
    .evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const selection = document.getSelection()!;
      selection.removeAllRanges();
      selection.addRange(range);
      return selection.toString().trim();
    });
}

/** An ownerless conversation someone else started over HTTP, waiting on the page tool `get_selection`. */
async function strangersConversation(): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${harness.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((response) => response.json());
  const { id } = await post('/api/conversations', { agent: 'page-helper' });
  const sent = await post(`/api/conversations/${id}/messages`, { content: 'what is selected?' });
  expect(sent.status).toBe('requires_action');
  return id;
}

describe.skipIf(browserSkip)('client tools and whose conversation it is', { timeout: 40_000 }, () => {
  for (const token of ['tok-ada', undefined]) {
    it(`a link to someone else's ownerless conversation sends it nothing until the viewer says so (${token ? 'signed in' : 'anonymous'})`, async () => {
      const id = await strangersConversation();
      const context = await newContext(harness);
      const page = await context.newPage();
      await signIn(page, token);
      // Something selected in the console before following the link; the link opens within the console.
      const selected = await select(page, 'h1');
      expect(selected).toBe('Start a conversation');
      // The page follows the conversation live once it has read it: when that stream answers, the page
      // has all it will learn of it.
      const following = page.waitForResponse((response) =>
        response.url().includes(`/api/conversations/${id}/events/stream`),
      );
      await page.evaluate((path) => {
        window.history.pushState(null, '', path);
        window.dispatchEvent(new Event('heed:navigate'));
      }, `/c/${id}`);
      const card = dock(page);
      const run = card.getByRole('button', { name: 'Run get_selection' });
      await run.waitFor();
      await expect.poll(() => card.textContent()).toContain('run it only if you trust it');
      await following;
      // Still only offered, and the server got nothing.
      await expect.poll(() => run.count()).toBe(1);
      expect((await serverActions(harness, id)).map((action) => action.status)).toEqual(['pending']);

      // The viewer chooses to run it: then the page answers.
      await run.click();
      await transcript(page).getByText('You selected: {"text":"Start a conversation"}').waitFor();
      expect((await serverActions(harness, id))[0]).toMatchObject({ status: 'resolved', channel: 'api' });
      await context.close();
    });
  }

  it('in a conversation this browser started anonymously, the page tool runs on its own', async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page);
    const id = await startConversation(page, 'page-helper');
    await select(page, '.agent-description');
    await sendMessage(page, 'what did I select?');
    await transcript(page)
      .getByText('You selected: {"text":"Reads the text you selected in the page (a client tool)."}')
      .waitFor();
    expect((await serverActions(harness, id))[0]).toMatchObject({ status: 'resolved', channel: 'api' });
    await context.close();
  });
});
