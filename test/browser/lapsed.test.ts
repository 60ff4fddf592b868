import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mailCapture, type CapturedMail } from '../../src/notify/mail-capture.js';
import { browserSkip, newContext, signIn, startHarness, type Harness } from './harness.js';

/**
 * A request nobody answered, as a person sees it in Chromium: the console's settled card and transcript,
 * and the answer page its mail linked to, say it lapsed and never "Denied". The server's clock is moved by
 * hand and the lapse sweep run by the test (no waiting).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

let harness: Harness;
let clock = Date.parse('2026-03-01T09:00:00Z');
const mails: CapturedMail[] = [];
const dir = mkdtempSync(join(tmpdir(), 'heed-lapsed-mail-'));
let conversationId: string;

async function api(method: string, path: string, body?: unknown): Promise<Any> {
  const response = await fetch(`${harness.url}${path}`, {
    method,
    headers: { authorization: 'Bearer tok-ada', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json();
}

beforeAll(async () => {
  harness = await startHarness({
    now: () => new Date(clock),
    hitl: { timeoutMinutes: 5 },
    notify: {
      pollIntervalMs: 50,
      email: {
        transport: mailCapture({ dir, onMail: (mail) => mails.push(mail) }),
        from: 'heed@example.com',
        to: () => 'ada@example.com',
      },
    },
  });
  conversationId = (await api('POST', '/api/conversations', { agent: 'refunds' })).id;
  const sent = await api('POST', `/api/conversations/${conversationId}/messages`, { content: 'refund order 7 $12' });
  expect(sent.status).toBe('requires_action');
  await vi.waitFor(() => expect(mails.length, 'a mail was sent').toBeGreaterThan(0), { timeout: 10_000 });
  clock += 6 * 60_000;
  expect((await harness.server.heed.expireDue()).lapsed).toBe(1);
}, 60_000);
afterAll(async () => {
  await harness?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(browserSkip)('a lapsed request in the browser', { timeout: 40_000 }, () => {
  it("the conversation's settled card and transcript say it lapsed, never Denied", async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-ada');
    await page.goto(`/c/${conversationId}`);
    const card = page.getByRole('region', { name: 'Lapsed: Refund $12 on order 7?' });
    await card.waitFor();
    await expect
      .poll(() => card.innerText())
      .toMatch(/^Lapsed\s+Refund \$12 on order 7\?\s+Lapsed: nobody answered in time · /);
    // The call in the transcript: it timed out, and the agent's reply says nobody answered.
    const shown = () => page.locator('main').innerText();
    await expect.poll(shown).toMatch(/issue_refund\s+timed out/);
    await expect
      .poll(shown)
      .toContain('No refund: Nobody answered in time, so the call was not approved and did not run.');
    if (process.env.HEED_LAPSE_SHOT) await page.screenshot({ path: process.env.HEED_LAPSE_SHOT, fullPage: true });
    await expect.poll(shown).not.toMatch(/denied/i);
    await context.close();
  });

  it("the mail's answer page, opened after the lapse (its own link and its Deny link), says it lapsed", async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    for (const address of [mails[0].page!, `${mails[0].page!}?choice=deny`]) {
      await page.goto(address);
      const said = page.getByRole('alert');
      await said.waitFor();
      await expect
        .poll(() => said.textContent())
        .toBe(
          'Lapsed: nobody answered in time: this request closed at 2026-03-01T09:05:00.000Z, so this link no longer answers it.',
        );
      await expect.poll(() => page.locator('main').innerText()).not.toMatch(/denied/i);
      await expect.poll(() => page.getByRole('button').count()).toBe(0);
    }
    await context.close();
  });
});
