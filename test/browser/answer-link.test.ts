import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, webhookReceiver } from '../notify/receivers.js';
import { browserSkip, newContext, startHarness, unlabelledControls, type Harness } from './harness.js';

// The answer link's page (/a/<token>) in real headless Chromium: no sign-in, the console's own cards,
// every answer a POST to /api/links/<token>.
const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;
let harness: Harness;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

beforeAll(async () => {
  receiver = await webhookReceiver();
  harness = await startHarness({ notify: { webhooks: [{ url: receiver.url, secret, events: ['action.required'] }], pollIntervalMs: 50 } });
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

/** Pauses a new conversation with `agent`; resolves with the links its webhook carried. */
async function paused(agent: string, content: string) {
  const conversation = await api('POST', '/api/conversations', { agent });
  const turn = await api('POST', `/api/conversations/${conversation.id}/messages`, { content });
  expect(turn.status).toBe('requires_action');
  const actionId = turn.pendingActions[0].id as string;
  const call = await receiver.until((calls) => calls.some((entry) => JSON.parse(entry.body).data.action.id === actionId));
  const body = JSON.parse(call.find((entry) => JSON.parse(entry.body).data.action.id === actionId)!.body);
  return { conversationId: conversation.id as string, actionId, links: body.data.links as { page: string; allow: string } };
}

async function settled(conversationId: string, actionId: string) {
  return eventually(async () => {
    const { actions } = await api('GET', `/api/conversations/${conversationId}/actions`);
    const action = actions.find((entry: { id: string }) => entry.id === actionId);
    return action.status === 'pending' ? undefined : action;
  });
}

describe.skipIf(browserSkip)('the answer link page', { timeout: 40_000 }, () => {
  it('an approval: the choice from the message takes one click; loading the page answers nothing', async () => {
    const { conversationId, actionId, links } = await paused('refunds', 'refund order 42 for $30');
    const page = await (await newContext(harness)).newPage();
    await page.goto(links.allow);
    await page.getByRole('heading', { name: 'refunds is waiting for your answer' }).waitFor();
    // The approval card, with its arguments, below the one-click choice.
    await page.getByRole('heading', { name: 'Refund $30 on order 42?' }).waitFor();
    expect(await page.getByRole('definition').allTextContents()).toEqual(['42', '30', 'customer request']);
    expect(await unlabelledControls(page)).toEqual([]);
    expect((await api('GET', `/api/conversations/${conversationId}/actions`)).actions[0].status).toBe('pending');

    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'your answer was recorded' }).waitFor();
    const action = await settled(conversationId, actionId);
    expect(action).toMatchObject({ status: 'resolved', resolution: { decision: 'allow' }, resolvedBy: 'ada', channel: 'link' });
    await page.getByRole('heading', { name: /refunds: / }).waitFor();
    await eventually(async () => ((await api('GET', `/api/conversations/${conversationId}`)).runtime.status === 'idle' ? true : undefined));
  });

  it('an approval with its arguments edited on the page', async () => {
    const { conversationId, actionId, links } = await paused('refunds', 'refund order 7 for $80');
    const page = await (await newContext(harness)).newPage();
    await page.goto(links.page);
    await page.getByRole('button', { name: 'Edit arguments' }).click();
    await page.getByRole('spinbutton', { name: 'amount' }).fill('60');
    await page.getByRole('button', { name: 'Allow with changes' }).click();
    const action = await settled(conversationId, actionId);
    expect(action).toMatchObject({ resolution: { decision: 'allow', approvedArgs: { orderId: 7, amount: 60 } }, channel: 'link' });
  });

  it('a typed question: a number and an email, checked, then recorded', async () => {
    const { conversationId, actionId, links } = await paused('typed', 'book seats');
    const page = await (await newContext(harness)).newPage();
    await page.goto(links.page);
    const seats = page.getByRole('spinbutton', { name: 'How many seats do you need?' });
    await seats.fill('4');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('textbox', { name: 'Which email should we write to?' }).fill('ada@example.com');
    await page.getByRole('button', { name: 'Submit answers' }).click();
    const action = await settled(conversationId, actionId);
    expect(action).toMatchObject({ status: 'resolved', resolution: { answers: { Seats: ['4'], Contact: ['ada@example.com'] } }, resolvedBy: 'ada', channel: 'link' });
    // Opening the link again shows it answered.
    await page.reload();
    await page.getByRole('heading', { name: /typed: / }).waitFor();
  });

  it('a bad token shows that the link is not valid', async () => {
    const page = await (await newContext(harness)).newPage();
    await page.goto('/a/not-a-real-token');
    await page.getByRole('alert').filter({ hasText: 'This link is not valid' }).waitFor();
  });
});
