import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkip, newContext, signIn, startHarness, type Harness } from './harness.js';
import { axeProblems, layoutReport, SIZES } from './page-checks.js';

/**
 * The console's Queue page in Chromium, at a phone's and a laptop's size: an operator sees the link and
 * the figures the server computed (waiting, oldest, median and 90% time to decision, aging, per agent);
 * someone else sees no link, and a message if they open the page. Screenshots go to docs/console.md.
 */

const DAY = 86_400_000;
let clock = Date.now() - 8 * DAY;
let harness: Harness;

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${harness.url}${path}`, {
    method,
    headers: { authorization: 'Bearer tok-ada', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** A refund asked of a person now (the server's clock); returns the conversation and action ids. */
async function askRefund(): Promise<{ id: string; actionId: string }> {
  const { id } = (await api('POST', '/api/conversations', { agent: 'refunds' })) as { id: string };
  const sent = await api('POST', `/api/conversations/${id}/messages`, { content: 'refund order 7 $12' });
  const [action] = sent.pendingActions as Array<{ id: string }>;
  return { id, actionId: action.id };
}

beforeAll(async () => {
  harness = await startHarness({
    notify: { operators: ['ada'] },
    hitl: { timeoutMinutes: 0 },
    now: () => new Date(clock),
  });
  // Eight days ago a refund asked and left waiting; five days ago one answered 40 minutes later; two days
  // ago one answered after 3 minutes; then one more asked now and left waiting, beside the oldest.
  await askRefund();
  clock = Date.now() - 5 * DAY;
  const first = await askRefund();
  clock += 40 * 60_000;
  await api('POST', `/api/conversations/${first.id}/actions/${first.actionId}`, {
    resolution: { type: 'approval', decision: 'allow' },
  });
  clock = Date.now() - 2 * DAY;
  const second = await askRefund();
  clock += 3 * 60_000;
  await api('POST', `/api/conversations/${second.id}/actions/${second.actionId}`, {
    resolution: { type: 'approval', decision: 'deny' },
  });
  clock = Date.now();
  await askRefund();
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

describe.skipIf(browserSkip)('the Queue page', { timeout: 90_000 }, () => {
  for (const size of SIZES) {
    it(`shows an operator what waits and how long answers take, at ${size.width}×${size.height}`, async () => {
      const context = await newContext(harness, size);
      const page = await context.newPage();
      await signIn(page, 'tok-ada');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Queue' }).click();
      await page.getByRole('heading', { name: 'Queue', level: 1 }).waitFor();
      const tile = (name: string) => page.locator('.queue-tiles > div').filter({ hasText: name }).locator('dd');
      await tile('Waiting').getByText('2', { exact: true }).waitFor();
      await expect.poll(() => tile('Oldest waiting').textContent()).toBe('8 days ago');
      // Two answers: 3 min and 40 min; the median (nearest rank) is the first, 90% is the second.
      await expect.poll(() => tile('Median to decision').textContent()).toBe('3 min');
      await expect.poll(() => tile('90% decided within').textContent()).toBe('40 min');
      await expect.poll(() => page.getByText('2 answers from people in the last 7 days').isVisible()).toBe(true);
      await expect
        .poll(() =>
          page.getByRole('img', { name: /Under a day: 1, 1–3 days: 0, 3–7 days: 0, Over 7 days: 1/ }).isVisible(),
        )
        .toBe(true);
      const agent = page.locator('.queue-agent').filter({ hasText: 'refunds' });
      await expect
        .poll(() =>
          agent.locator('.queue-bar').filter({ hasText: 'Waiting' }).locator('.queue-bar-value').textContent(),
        )
        .toBe('2');

      const layout = await layoutReport(page);
      expect(layout.overflowing).toEqual([]);
      expect(layout.scrollWidth).toBe(layout.width);
      expect(await axeProblems(page)).toEqual([]);
      // HEED_SCREENSHOT_DIR=docs writes the pictures of docs/console.md (a run does not touch docs/ otherwise).
      if (process.env.HEED_SCREENSHOT_DIR) {
        await page.mouse.move(0, 0);
        const name = size.width < 760 ? 'queue-phone.png' : 'queue.png';
        await page.screenshot({ path: join(process.env.HEED_SCREENSHOT_DIR, name) });
      }
      await context.close();
    });
  }

  it('is not offered to someone who is not an operator, and says why when opened', async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-bob');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).waitFor();
    await expect
      .poll(() => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Queue' }).count())
      .toBe(0);
    await page.goto('/queue');
    await page
      .getByRole('alert')
      .getByText('Only the operators named in notify.operators can see the queue.')
      .waitFor();
    await context.close();
  });
});
