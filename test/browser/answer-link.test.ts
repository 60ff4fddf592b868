import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, webhookReceiver } from '../notify/receivers.js';
import { browserSkip, newContext, startHarness, unlabelledControls, type Harness } from './harness.js';
import { outsideViewport, shoot, viewports } from './viewports.js';

// The answer link's page (/a/<token>) in real headless Chromium: no sign-in, the console's own cards,
// every answer a POST to /api/links/<token>.
const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;
let harness: Harness;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

beforeAll(async () => {
  receiver = await webhookReceiver();
  harness = await startHarness({
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

/** Pauses a new conversation with `agent`; resolves with the links its webhook carried. */
async function paused(agent: string, content: string) {
  const conversation = await api('POST', '/api/conversations', { agent });
  const turn = await api('POST', `/api/conversations/${conversation.id}/messages`, { content });
  expect(turn.status).toBe('requires_action');
  const actionId = turn.pendingActions[0].id as string;
  const call = await receiver.until((calls) =>
    calls.some((entry) => JSON.parse(entry.body).data.action.id === actionId),
  );
  const body = JSON.parse(call.find((entry) => JSON.parse(entry.body).data.action.id === actionId)!.body);
  return {
    conversationId: conversation.id as string,
    actionId,
    links: body.data.links as {
      page: string;
      allow: string;
      deny: string;
      options?: Record<string, Record<string, string>>;
    },
  };
}

async function settled(conversationId: string, actionId: string) {
  return eventually(async () => {
    const { actions } = await api('GET', `/api/conversations/${conversationId}/actions`);
    const action = actions.find((entry: { id: string }) => entry.id === actionId);
    return action.status === 'pending' ? undefined : action;
  });
}

describe.skipIf(browserSkip)('the answer link page', { timeout: 40_000 }, () => {
  it("an approval: the page opens on the link's own choice, one card, one Allow; loading the page answers nothing", async () => {
    const { conversationId, actionId, links } = await paused('refunds', 'refund order 42 for $30');
    const page = await (await newContext(harness)).newPage();
    await page.goto(links.allow);
    await page.getByRole('heading', { name: 'refunds is waiting for your answer' }).waitFor();
    // The approval card, with its arguments; no second box above it with a button of its own.
    await page.getByRole('heading', { name: 'Refund $30 on order 42?' }).waitFor();
    await expect.poll(() => page.getByRole('definition').allTextContents()).toEqual(['42', '30', 'customer request']);
    await expect.poll(() => page.getByRole('button', { name: /^(Approve|Allow)$/ }).count()).toBe(1);
    expect(await unlabelledControls(page)).toEqual([]);
    expect((await api('GET', `/api/conversations/${conversationId}/actions`)).actions[0].status).toBe('pending');

    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'your answer was recorded' }).waitFor();
    const action = await settled(conversationId, actionId);
    expect(action).toMatchObject({
      status: 'resolved',
      resolution: { decision: 'allow' },
      resolvedBy: 'ada',
      channel: 'link',
    });
    await page.getByRole('heading', { name: /refunds: / }).waitFor();
    await eventually(async () =>
      (await api('GET', `/api/conversations/${conversationId}`)).runtime.status === 'idle' ? true : undefined,
    );
  });

  it('an approval with its arguments edited on the page', async () => {
    const { conversationId, actionId, links } = await paused('refunds', 'refund order 7 for $80');
    const page = await (await newContext(harness)).newPage();
    await page.goto(links.page);
    await page.getByRole('button', { name: 'Edit arguments' }).click();
    await page.getByRole('spinbutton', { name: 'amount' }).fill('60');
    await page.getByRole('button', { name: 'Allow with changes' }).click();
    const action = await settled(conversationId, actionId);
    expect(action).toMatchObject({
      resolution: { decision: 'allow', approvedArgs: { orderId: 7, amount: 60 } },
      channel: 'link',
    });
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
    expect(action).toMatchObject({
      status: 'resolved',
      resolution: { answers: { Seats: ['4'], Contact: ['ada@example.com'] } },
      resolvedBy: 'ada',
      channel: 'link',
    });
    // Opening the link again shows it answered.
    await page.reload();
    await page.getByRole('heading', { name: /typed: / }).waitFor();
  });

  for (const viewport of viewports) {
    it(`each link opens with its own choice, and names who asked and the agent (${viewport.name})`, async () => {
      const context = await newContext(harness, viewport);

      // Allow: marked, with a line saying it was picked in the message; nothing sent yet.
      const allow = await paused('refunds', 'refund order 5 for $12');
      const page = await context.newPage();
      await page.goto(allow.links.allow);
      await page.getByRole('heading', { name: 'Refund $12 on order 5?' }).waitFor();
      await expect
        .poll(() => page.locator('.link-who').textContent())
        .toBe('Requested by ada · agent refunds · for ada');
      await expect
        .poll(() =>
          page.getByText('You chose Allow in the message: check the arguments, then press Allow.').isVisible(),
        )
        .toBe(true);
      await expect
        .poll(() => page.getByRole('button', { name: 'Allow', exact: true }).getAttribute('class'))
        .toContain('heed-chosen');
      await expect
        .poll(() => page.getByRole('button', { name: 'Deny', exact: true }).getAttribute('class'))
        .not.toContain('heed-chosen');
      expect(await outsideViewport(page, page.locator('main').locator('h1, p, button, dl, textarea'))).toEqual([]);
      await shoot(page, 'link-allow');

      // Deny: Deny is the marked one and the keyboard is in the comment, so a reason goes with it.
      const deny = await paused('refunds', 'refund order 6 for $14');
      await page.goto(deny.links.deny);
      await page.getByRole('heading', { name: 'Refund $14 on order 6?' }).waitFor();
      await expect
        .poll(() => page.getByRole('button', { name: 'Deny', exact: true }).getAttribute('class'))
        .toContain('heed-chosen');
      await expect
        .poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.tagName))
        .toBe('TEXTAREA');
      await page.keyboard.type('Order 6 was already refunded.');
      await shoot(page, 'link-deny');
      await page.getByRole('button', { name: 'Deny', exact: true }).click();
      await expect
        .poll(() => settled(deny.conversationId, deny.actionId))
        .toMatchObject({
          resolution: { decision: 'deny', comment: 'Order 6 was already refunded.' },
          channel: 'link',
        });

      // "Wait until Monday" from the mail: that option is the one picked, not the default "Ship today".
      const wait = await paused('confirm', 'ship it');
      const later = wait.links.options!.Ship.no;
      expect(later).toMatch(/\?q=Ship&v=no$/);
      await page.goto(later);
      const option = page.getByRole('radio', { name: /Wait until Monday/ });
      await option.waitFor();
      await expect.poll(() => option.getAttribute('aria-checked')).toBe('true');
      await expect
        .poll(() => page.getByRole('radio', { name: /Ship today/ }).getAttribute('aria-checked'))
        .toBe('false');
      await expect.poll(() => page.getByText('You chose “Wait until Monday” in the message.').isVisible()).toBe(true);
      expect(await outsideViewport(page, page.locator('main').locator('h1, p, [role="radio"], button'))).toEqual([]);
      await shoot(page, 'link-question');
      expect((await api('GET', `/api/conversations/${wait.conversationId}/actions`)).actions[0].status).toBe('pending');
      await option.click();
      await expect
        .poll(() => settled(wait.conversationId, wait.actionId))
        .toMatchObject({
          resolution: { answers: { Ship: ['no'] } },
          resolvedBy: 'ada',
          channel: 'link',
        });
      await context.close();
    });
  }

  it('a bad token shows that the link is not valid', async () => {
    const page = await (await newContext(harness)).newPage();
    await page.goto('/a/not-a-real-token');
    await page.getByRole('alert').filter({ hasText: 'This link is not valid' }).waitFor();
  });
});
