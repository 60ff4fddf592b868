import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { browserSkip, newContext, signIn, startHarness, type Harness } from './harness.js';
import { axeProblems, layoutReport, SIZES } from './page-checks.js';

/**
 * The console inbox's batch answers in Chromium, against a real server: select, Approve all / Deny all, a
 * summary before sending (how many, which tools with which arguments run, which are left out and why),
 * then how each answer went (settled, already answered by someone, refused). Screenshots go to
 * docs/console.md.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

let harness: Harness;

async function api(method: string, path: string, body?: unknown, token = 'tok-ada'): Promise<Any> {
  const response = await fetch(`${harness.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json();
}

/** A conversation with `agent` whose first message leaves one request waiting on ada. */
async function asked(agent: string, content: string): Promise<{ id: string; actionId: string }> {
  const { id } = await api('POST', '/api/conversations', { agent });
  const sent = await api('POST', `/api/conversations/${id}/messages`, { content });
  return { id, actionId: sent.pendingActions[0].id };
}

beforeEach(async () => {
  harness = await startHarness();
}, 60_000);
afterEach(async () => {
  await harness?.close();
});

describe.skipIf(browserSkip)('answering several requests from the inbox', { timeout: 90_000 }, () => {
  for (const size of SIZES) {
    it(`approves the selected after a summary, and says how each went, at ${size.width}×${size.height}`, async () => {
      const one = await asked('refunds', 'refund order 1 $12');
      const two = await asked('refunds', 'refund order 2 $30');
      const three = await asked('refunds', 'refund order 3 $45');
      await asked('confirm', 'ship it');

      const context = await newContext(harness, size);
      const page = await context.newPage();
      await signIn(page, 'tok-ada');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
      await page.getByText('4 requests are waiting on you.').waitFor();
      await page.getByRole('checkbox', { name: 'Select all' }).check();
      await page.getByText('4 selected').waitFor();
      await page.getByRole('button', { name: 'Approve all' }).click();

      // Before anything is sent: three approvals, the tools and arguments that will run, the question left out.
      const preflight = page.getByRole('region', { name: 'Approve 3 requests?' });
      await preflight.waitFor();
      await expect
        .poll(() => preflight.getByRole('list', { name: 'Will run' }).getByRole('listitem').allTextContents())
        .toEqual([
          'issue_refund: orderId 1 · amount 12 · reason “customer request”',
          'issue_refund: orderId 2 · amount 30 · reason “customer request”',
          'issue_refund: orderId 3 · amount 45 · reason “customer request”',
        ]);
      await expect
        .poll(() => preflight.getByRole('list', { name: 'Left out' }).textContent())
        .toBe('Ship the order today? — A question cannot be approved: open it to answer it.');
      await expect.poll(() => preflight.getByText('no approval is remembered for later calls').isVisible()).toBe(true);
      expect(await axeProblems(page)).toEqual([]);
      const shots = process.env.HEED_SCREENSHOT_DIR;
      const suffix = size.width < 760 ? '-phone' : '';
      if (shots) {
        await page.mouse.move(0, 0);
        await preflight.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(shots, `inbox-batch${suffix}.png`) });
      }

      // Meanwhile order 3 is denied on its own: the batch gets 409 for it and says who answered, and how.
      const single = await api('POST', `/api/conversations/${three.id}/actions/${three.actionId}`, {
        resolution: { type: 'approval', decision: 'deny', comment: 'not this one' },
      });
      expect(single.status).toBe('completed');

      await preflight.getByRole('button', { name: 'Approve 3 requests' }).click();
      const results = page.getByRole('region', { name: '2 of 3 requests settled' });
      await results.waitFor();
      await expect
        .poll(() => results.getByRole('list', { name: 'How each answer went' }).getByRole('listitem').allTextContents())
        .toEqual([
          'Refund $12 on order 1? Settled: Allowed',
          'Refund $30 on order 2? Settled: Allowed',
          'Refund $45 on order 3? Already answered by you: Denied ("not this one")',
        ]);
      await page.getByText('1 request is waiting on you.').waitFor();
      if (size.width >= 760) {
        // The conversation list beside follows at once (not at its 10 s refresh): the settled ones no longer say Waiting.
        const list = page.getByRole('navigation', { name: 'Conversations' });
        const rows = (text: string) =>
          list.getByRole('link', { name: new RegExp(text.replace('$', '\\$')) }).allTextContents();
        const waiting = async (text: string) => (await rows(text)).map((row) => row.includes('Waiting'));
        for (const text of ['refund order 1 $12', 'refund order 2 $30', 'refund order 3 $45'])
          await expect.poll(() => waiting(text), { timeout: 4000 }).not.toContain(true);
        await expect.poll(() => waiting('ship it')).not.toContain(false);
      }
      const layout = await layoutReport(page);
      expect(layout.overflowing).toEqual([]);
      expect(layout.scrollWidth).toBe(layout.width);
      expect(await axeProblems(page)).toEqual([]);
      if (shots) {
        await page.mouse.move(0, 0);
        await page.screenshot({ path: join(shots, `inbox-batch-results${suffix}.png`) });
      }

      // The two tools ran, once each; nothing was remembered for the tool.
      for (const { id } of [one, two]) {
        const snapshot = await api('GET', `/api/conversations/${id}`);
        expect(JSON.stringify(snapshot.messages)).toContain('Refund done');
        const actions = await api('GET', `/api/conversations/${id}/actions`);
        expect(actions.actions[0]).toMatchObject({ status: 'resolved', resolvedBy: 'ada', channel: 'api' });
      }
      const events = await api('GET', `/api/conversations/${one.id}/events?limit=200`);
      expect(events.events.filter((event: Any) => event.type === 'tool.result')).toHaveLength(1);
      expect((await api('GET', `/api/conversations/${one.id}/remembered-tools`)).tools).toEqual([]);
      await context.close();
    });
  }

  it('denies the selected: nothing runs, a page opened elsewhere is declined, a question is left out', async () => {
    const refund = await asked('refunds', 'refund order 8 $80');
    await asked('linker', 'connect me');
    await asked('confirm', 'ship it');
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-ada');
    await page.goto('/inbox');
    await page.getByText('3 requests are waiting on you.').waitFor();
    await page.getByRole('checkbox', { name: 'Select: Refund $80 on order 8?' }).check();
    await page.getByRole('checkbox', { name: 'Select: Connect your Example account' }).check();
    await page.getByRole('checkbox', { name: 'Select: Ship the order today?' }).check();
    // Approve all leaves out all but the refund; Back returns without sending anything.
    await page.getByRole('button', { name: 'Approve all' }).click();
    const approving = page.getByRole('region', { name: 'Approve 1 request?' });
    await approving.waitFor();
    await expect
      .poll(() => approving.getByRole('list', { name: 'Left out' }).getByRole('listitem').allTextContents())
      .toEqual([
        'Connect your Example account — Only you can say you opened the page: open it to do so.',
        'Ship the order today? — A question cannot be approved: open it to answer it.',
      ]);
    await approving.getByRole('button', { name: 'Back' }).click();
    expect((await api('GET', `/api/conversations/${refund.id}/actions`)).actions[0].status).toBe('pending');

    await page.getByRole('button', { name: 'Deny all' }).click();
    const denying = page.getByRole('region', { name: 'Deny 2 requests?' });
    await denying.getByText('Nothing runs').waitFor();
    await expect
      .poll(() => denying.getByRole('list', { name: 'Left out' }).textContent())
      .toBe('Ship the order today? — A question cannot be denied: open it to answer or skip it.');
    await denying.getByRole('button', { name: 'Deny 2 requests' }).click();
    // The summary comes once the server has answered; poll rather than read it once.
    const results = page.getByRole('region', { name: '2 of 2 requests settled' });
    await expect
      .poll(() => results.getByRole('listitem').allTextContents())
      .toEqual(['Refund $80 on order 8? Settled: Denied', 'Connect your Example account Settled: Declined']);
    await page.getByText('1 request is waiting on you.').waitFor();
    const snapshot = await api('GET', `/api/conversations/${refund.id}`);
    expect(JSON.stringify(snapshot.messages)).toContain('No refund');
    await context.close();
  });
});
