import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserSkip, newContext, signIn, startHarness, tabTo, type Harness } from './harness.js';
import { axeProblems, layoutReport } from './page-checks.js';
import { scrollsSideways, shoot, viewports } from './viewports.js';

/**
 * The console's Tokens page in Chromium (docs/auth.md, Personal tokens): a person makes a token, sees its
 * secret once, copies it, uses it against the API, and revokes it, after which the API refuses it.
 */

let harness: Harness;
let nightly: string;

beforeAll(async () => {
  harness = await startHarness({
    auth: { tokens: { 'tok-ada': { userId: 'ada' }, 'tok-bob': { userId: 'bob' } }, admins: ['ada'] },
  });
  // One token ada made before, used once, so the list shows one beside the new one.
  const made = await fetch(`${harness.url}/api/me/tokens`, {
    method: 'POST',
    headers: { authorization: 'Bearer tok-ada', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'nightly report', scopes: ['read'] }),
  });
  nightly = ((await made.json()) as { token: string }).token;
  await me(nightly);
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

async function me(token: string): Promise<{ status: number; userId?: string }> {
  const response = await fetch(`${harness.url}/api/me`, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: response.status,
    userId: response.ok ? ((await response.json()) as { userId: string }).userId : undefined,
  };
}

/** Goes to the Tokens page the way a person would: the top bar's link, or on a phone the menu's. */
async function openTokens(page: Page): Promise<void> {
  if (page.viewportSize()!.width < 760) {
    await page.getByRole('button', { name: 'Conversations' }).click();
    const menu = page.getByRole('navigation', { name: 'Conversations' });
    // Shot once the drawer has slid in.
    await expect.poll(async () => (await menu.boundingBox())?.x).toBe(0);
    await shoot(page, 'tokens-menu');
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: 'Tokens' }).click();
  } else await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tokens' }).click();
  await page.waitForURL('**/tokens');
  await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
}

describe.skipIf(browserSkip)('the Tokens page', { timeout: 90_000 }, () => {
  for (const viewport of viewports) {
    it(`at ${viewport.width} px: a token is made, shown once, copied, works with the API, and once revoked is refused`, async () => {
      const context = await newContext(harness, viewport);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.url });
      const page = await context.newPage();
      await signIn(page, 'tok-ada');
      await openTokens(page);
      await page.getByRole('heading', { name: 'Your tokens' }).waitFor();

      const name = `laptop terminal ${viewport.width}`;
      const form = page.getByRole('form', { name: 'Make a token' });
      await form.getByLabel('Name').fill(name);
      // read and answer are ticked to begin with; an admin is offered the admin scope too.
      expect(await form.getByRole('checkbox', { name: /^read/ }).isChecked()).toBe(true);
      expect(await form.getByRole('checkbox', { name: /^answer/ }).isChecked()).toBe(true);
      expect(await form.getByRole('checkbox', { name: /^converse/ }).isChecked()).toBe(false);
      expect(await form.getByRole('checkbox', { name: /^admin/ }).count()).toBe(1);
      await form.getByLabel('Lapses').selectOption({ label: 'In 30 days' });
      await form.getByRole('button', { name: 'Make token' }).click();

      const secretPanel = page.getByRole('region', { name: `Your new token “${name}”` });
      const field = secretPanel.getByRole('textbox', { name: 'New token' });
      await expect.poll(() => field.inputValue()).toMatch(/^heed_pat_/);
      const secret = await field.inputValue();
      expect(await field.getAttribute('readonly')).not.toBeNull();
      // The keyboard is on the secret, so it can be copied at once.
      expect(await field.evaluate((element) => element === document.activeElement)).toBe(true);
      await secretPanel.getByText('Copy it now: it will not be shown again.').waitFor();
      await secretPanel.getByRole('button', { name: 'Copy' }).click();
      await secretPanel.getByRole('status').getByText('Copied.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

      // Listed, without its secret: name, scopes, made today, never used, lapsing in 30 days.
      const row = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name, level: 3 }) });
      await row.waitFor();
      expect(await row.getByRole('list', { name: 'Scopes' }).getByRole('listitem').allTextContents()).toEqual([
        'read',
        'answer',
      ]);
      expect(await row.locator('.tokens-dates').innerText()).toMatch(/Last used\s*Never/);
      const lapses = await row.locator('dt:text("Lapses") + dd time').getAttribute('datetime');
      expect(Date.parse(lapses!) - Date.now()).toBeGreaterThan(29 * 86_400_000);
      expect(await page.locator('.tokens-list').innerText()).not.toContain(secret);

      // The secret works as a bearer token.
      expect(await me(secret)).toEqual({ status: 200, userId: 'ada' });

      expect(await scrollsSideways(page)).toBe(false);
      const layout = await layoutReport(page);
      expect(layout.overflowing).toEqual([]);
      expect(await axeProblems(page)).toEqual([]);
      await page.mouse.move(0, 0);
      await shoot(page, 'tokens');
      // HEED_SCREENSHOT_DIR=docs writes the pictures of docs/console.md (a run does not touch docs/ otherwise).
      if (process.env.HEED_SCREENSHOT_DIR)
        await page.screenshot({
          path: join(process.env.HEED_SCREENSHOT_DIR, viewport.width < 760 ? 'tokens-phone.png' : 'tokens.png'),
        });

      // Shown once: after a reload only the list has it, and it says it has been used.
      await page.reload();
      await row.waitFor();
      expect(await page.getByRole('textbox', { name: 'New token' }).count()).toBe(0);
      expect(await page.content()).not.toContain(secret);
      await expect.poll(() => row.locator('.tokens-dates').innerText()).toMatch(/Last used\s*just now/);

      // Revoke asks first; keeping it changes nothing.
      await row.getByRole('button', { name: `Revoke ${name}` }).click();
      const confirm = row.getByRole('group', { name: `Revoke ${name}?` });
      await confirm.getByRole('button', { name: 'Keep it' }).click();
      await row.getByRole('button', { name: `Revoke ${name}` }).waitFor();
      expect((await me(secret)).status).toBe(200);

      await row.getByRole('button', { name: `Revoke ${name}` }).click();
      await shoot(page, 'tokens-confirm');
      await confirm.getByRole('button', { name: 'Yes, revoke' }).click();
      await page.getByRole('status').getByText(`Revoked “${name}”.`, { exact: false }).waitFor();
      await expect.poll(() => row.count()).toBe(0);
      expect((await me(secret)).status).toBe(401);
      await context.close();
    });
  }

  it('works from the keyboard alone: Tab to the fields, make a token, Escape backs out of revoking', async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-bob');
    await openTokens(page);
    // bob is not an admin: no admin scope to give.
    const form = page.getByRole('form', { name: 'Make a token' });
    await form.getByRole('checkbox', { name: /^read/ }).waitFor();
    expect(await form.getByRole('checkbox', { name: /^admin/ }).count()).toBe(0);

    await tabTo(page, /^\s*Name/);
    await page.keyboard.type('ci job');
    await tabTo(page, /converse/);
    await page.keyboard.press('Space');
    await tabTo(page, /Make token/);
    await page.keyboard.press('Enter');
    const field = page.getByRole('textbox', { name: 'New token' });
    await expect.poll(() => field.evaluate((element) => element === document.activeElement)).toBe(true);
    const secret = await field.inputValue();
    expect(await me(secret)).toEqual({ status: 200, userId: 'bob' });
    const row = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'ci job' }) });
    expect(await row.getByRole('list', { name: 'Scopes' }).getByRole('listitem').allTextContents()).toEqual([
      'read',
      'answer',
      'converse',
    ]);
    expect(await row.locator('.tokens-dates').innerText()).toMatch(/Lapses\s*\w/);

    await tabTo(page, /Revoke ci job/);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Keep it');
    await page.keyboard.press('Escape');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Revoke ci job');
    expect((await me(secret)).status).toBe(200);
    await context.close();
  });

  it('is not offered to an anonymous visitor', async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).waitFor();
    expect(await page.getByRole('link', { name: 'Tokens' }).count()).toBe(0);
    await context.close();
  });

  it('signed in with a personal token, says tokens are managed from a session', async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, nightly);
    await openTokens(page);
    await page.getByRole('alert').getByText('managed from a signed-in session', { exact: false }).waitFor();
    expect(await page.getByRole('form', { name: 'Make a token' }).count()).toBe(0);
    await context.close();
  });
});
