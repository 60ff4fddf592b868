import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAgents } from '../fixtures/browser.config.js';
import { quorumAgent, quorumTokens } from '../fixtures/quorum-agent.js';
import {
  browserSkip,
  newContext,
  sendMessage,
  signIn,
  startConversation,
  startHarness,
  type Harness,
} from './harness.js';

// The conversation list's "Waiting" mark follows the open conversation's own events, not only the list's
// 10 s refresh or the inbox: here the pause waits on others (four eyes: 2 of bob, cat, dan), so nothing
// enters or leaves the viewer's inbox, and the row must still change within a few seconds.

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({
    agents: [...browserAgents!, quorumAgent(() => undefined)],
    auth: { tokens: Object.fromEntries(Object.entries(quorumTokens).map(([name, user]) => [`tok-${name}`, user])) },
  });
}, 60_000);
afterAll(() => harness?.close());

async function api(method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${harness.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** The conversation's row in the sidebar. */
const row = (page: Page, id: string) =>
  page.getByRole('navigation', { name: 'Conversations' }).locator(`a[href="/c/${encodeURIComponent(id)}"]`);

describe.skipIf(browserSkip)('the conversation list follows the open conversation', { timeout: 60_000 }, () => {
  it('marks the row Waiting when it pauses on others, and drops the mark when they settle it over HTTP', async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-ada');
    const id = await startConversation(page, 'payments');
    await row(page, id).waitFor();
    await expect.poll(() => row(page, id).textContent()).not.toContain('Waiting');

    await sendMessage(page, 'pay acme');
    await page
      .locator('.chat-head')
      .getByRole('status')
      .filter({ hasText: 'Waiting for 2 of: bob, cat, dan' })
      .waitFor();
    // Well under the list's 10 s refresh.
    await expect.poll(() => row(page, id).textContent(), { timeout: 4_000 }).toContain('Waiting');
    // The request is not ada's to answer: her inbox stays empty, so it is not what refreshed the list.
    await expect.poll(() => page.getByRole('link', { name: /^Inbox/ }).textContent()).toBe('Inbox');
    expect((await api('GET', '/api/inbox', 'tok-ada')).body.actions).toEqual([]);

    const { actions } = (await api('GET', `/api/conversations/${encodeURIComponent(id)}/actions`, 'tok-ada')).body;
    const pending = actions.find((action: { status: string }) => action.status === 'pending');
    for (const token of ['tok-bob', 'tok-cat']) {
      const vote = await api('POST', `/api/conversations/${encodeURIComponent(id)}/actions/${pending.id}`, token, {
        resolution: { type: 'approval', decision: 'allow' },
      });
      expect(vote.status).toBe(200);
    }
    await expect.poll(() => row(page, id).textContent(), { timeout: 4_000 }).not.toContain('Waiting');
    await page.getByText('Done.').waitFor();
    await context.close();
  });
});
