import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, webhookReceiver } from '../notify/receivers.js';
import {
  browserSkip,
  dock,
  newContext,
  sendMessage,
  signIn,
  startConversation,
  startHarness,
  unlabelledControls,
  type Harness,
} from './harness.js';

// The Extend control (docs/approvals.md, Reminders and extensions) in real headless Chromium: on the
// console's waiting card and on the answer link's page, each extension read back from the server.
const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;
const day = 24 * 3600_000;
let harness: Harness;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

beforeAll(async () => {
  receiver = await webhookReceiver();
  harness = await startHarness({
    // The default deadline is a day; an extension may reach at most two days from now.
    hitl: { maxExtendMinutes: 2880 },
    notify: { webhooks: [{ url: receiver.url, secret, events: ['action.required'] }], pollIntervalMs: 50 },
  });
}, 60_000);
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${harness.url}${path}`, {
    method,
    headers: { authorization: 'Bearer tok-ada', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json();
}

async function expiresAtOf(conversationId: string): Promise<number> {
  const { actions } = await api('GET', `/api/conversations/${conversationId}/actions`);
  return Date.parse(actions[0].expiresAt);
}

describe.skipIf(browserSkip)('extending a deadline', { timeout: 40_000 }, () => {
  it("the console's waiting card: Extend moves the deadline; a choice past the bound or earlier says why, and changes nothing", async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-ada');
    const id = await startConversation(page, 'refunds');
    await sendMessage(page, 'refund order 42 for $30');
    const card = dock(page);
    await card.getByRole('heading', { name: 'Refund $30 on order 42?' }).waitFor();
    const deadline = card.getByRole('group', { name: 'Deadline' });
    await deadline.getByText(/^Lapses .* if nobody answers\.$/).waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    const before = await expiresAtOf(id);

    // Earlier than it already lapses: the server's sentence, nothing changed.
    await deadline.getByRole('combobox', { name: 'Wait until' }).selectOption({ label: '4 hours from now' });
    await deadline.getByRole('button', { name: 'Extend' }).click();
    await deadline.getByRole('alert').filter({ hasText: 'only moves its deadline later' }).waitFor();
    // Past hitl.maxExtendMinutes (two days): the same.
    await deadline.getByRole('combobox', { name: 'Wait until' }).selectOption({ label: '3 days from now' });
    await deadline.getByRole('button', { name: 'Extend' }).click();
    await deadline.getByRole('alert').filter({ hasText: 'at most 2880 minutes' }).waitFor();
    await expect.poll(() => expiresAtOf(id)).toBe(before);

    // One day from now is a little later than the deadline set a moment ago: accepted.
    await deadline.getByRole('combobox', { name: 'Wait until' }).selectOption({ label: '1 day from now' });
    await deadline.getByRole('button', { name: 'Extend' }).click();
    await deadline.getByRole('status').filter({ hasText: 'Extended: it now waits until' }).waitFor();
    const after = await expiresAtOf(id);
    expect(after).toBeGreaterThan(before);
    expect(Math.abs(after - Date.now() - day)).toBeLessThan(60_000);
    const { events } = await api('GET', `/api/conversations/${id}/events`);
    expect(events.filter((event: { type: string }) => event.type === 'action.extended')).toHaveLength(1);
    // The card is still there to answer.
    await card.getByRole('button', { name: 'Allow', exact: true }).click();
    await eventually(async () => {
      const { actions } = await api('GET', `/api/conversations/${id}/actions`);
      return actions[0].status === 'resolved' ? true : undefined;
    });
    await context.close();
  });

  it('the answer link page: Extend moves the deadline as the link’s recipient and the page goes on with a link that lasts', async () => {
    const conversation = await api('POST', '/api/conversations', { agent: 'refunds' });
    const turn = await api('POST', `/api/conversations/${conversation.id}/messages`, {
      content: 'refund order 7 for $12',
    });
    const actionId = turn.pendingActions[0].id as string;
    const calls = await receiver.until((all) => all.some((call) => JSON.parse(call.body).data.action.id === actionId));
    const links = JSON.parse(calls.find((call) => JSON.parse(call.body).data.action.id === actionId)!.body).data
      .links as { page: string };

    const page = await (await newContext(harness)).newPage();
    await page.goto(links.page);
    await page.getByRole('heading', { name: 'refunds is waiting for your answer' }).waitFor();
    const deadline = page.getByRole('group', { name: 'Deadline' });
    expect(await unlabelledControls(page)).toEqual([]);
    const before = await expiresAtOf(conversation.id);
    await deadline.getByRole('combobox', { name: 'Wait until' }).selectOption({ label: '1 day from now' });
    await deadline.getByRole('button', { name: 'Extend' }).click();
    await deadline.getByRole('status').filter({ hasText: 'Extended: it now waits until' }).waitFor();
    await expect.poll(() => expiresAtOf(conversation.id)).toBeGreaterThan(before);
    const { events } = await api('GET', `/api/conversations/${conversation.id}/events`);
    const extended = events.find((event: { type: string }) => event.type === 'action.extended');
    // The link was made for the conversation's owner: the extension is theirs.
    expect(extended.data).toMatchObject({ actionId, by: 'ada', minutes: 1440 });
    // A new link, lasting until the new deadline, replaced the old one in the address bar; answering works on it.
    await eventually(() => (page.url() !== links.page ? true : undefined));
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'your answer was recorded' }).waitFor();
    const { actions } = await api('GET', `/api/conversations/${conversation.id}/actions`);
    expect(actions[0]).toMatchObject({ status: 'resolved', channel: 'link', resolvedBy: 'ada' });
  });
});
