import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startProvider, type TestProvider } from '../oidc.js';
import { browserSkip, newContext, signIn, startHarness, type Harness } from './harness.js';
import { axeProblems, layoutReport } from './page-checks.js';
import { scrollsSideways, shoot, viewports } from './viewports.js';

/**
 * The terminal's sign-in through the browser (`heed inbox --login`, docs/auth.md) from the person's side, in
 * Chromium: the terminal's request is made over HTTP as the CLI makes it; the person opens `/auth/device`,
 * sees which machine asks and approves or denies it; the terminal's poll then gets a token, or is refused.
 */

let harness: Harness;
let provider: TestProvider;

beforeAll(async () => {
  // A real OpenID provider for the way most people sign in (test/oidc.ts), beside config tokens.
  provider = await startProvider({ people: { eve: {} } });
  // One person per test: the server allows ten code look-ups a minute per person.
  harness = await startHarness({
    auth: {
      oidc: { issuer: provider.issuer, clientId: 'heed', clientSecret: 'heed-test-secret', name: 'Example SSO' },
      tokens: {
        'tok-ada': { userId: 'ada' },
        'tok-bob': { userId: 'bob' },
        'tok-cy': { userId: 'cy' },
        'tok-dee': { userId: 'dee' },
      },
    },
  });
  provider.register(harness.url);
}, 60_000);
afterAll(async () => {
  await harness?.close();
  await provider?.close();
});

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${harness.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** What `heed inbox --login` does first: asks for a code in the machine's name. */
async function begin(clientName: string): Promise<{ deviceCode: string; userCode: string; page: string }> {
  const started = (await post('/auth/device', { clientName })).body as {
    deviceCode: string;
    userCode: string;
    verificationUriComplete: string;
  };
  const url = new URL(started.verificationUriComplete);
  return { deviceCode: started.deviceCode, userCode: started.userCode, page: `${url.pathname}${url.search}` };
}

const poll = (deviceCode: string) => post('/auth/device/token', { deviceCode });

function question(page: Page, clientName: string) {
  return page.getByRole('heading', { name: `${clientName} wants to sign in as you`, level: 1 });
}

describe.skipIf(browserSkip)('the device approval page', { timeout: 90_000 }, () => {
  for (const [index, viewport] of viewports.entries()) {
    const [token, user] = index === 0 ? ['tok-ada', 'ada'] : ['tok-bob', 'bob'];
    it(`at ${viewport.width} px: the link the terminal prints names the machine; Approve gives the terminal a token`, async () => {
      const clientName = `${user}-laptop`;
      const started = await begin(clientName);
      expect((await poll(started.deviceCode)).body.error).toMatchObject({ code: 'authorization_pending' });

      const context = await newContext(harness, viewport);
      const page = await context.newPage();
      await signIn(page, token);
      let lookups = 0;
      page.on('request', (request) => void (request.url().includes('/auth/device/code?') && lookups++));
      await page.goto(started.page);
      await question(page, clientName).waitFor();
      await page.getByText(started.userCode, { exact: true }).waitFor();
      await page.getByText(/lapses at \d/).waitFor();

      expect(await scrollsSideways(page)).toBe(false);
      expect((await layoutReport(page)).overflowing).toEqual([]);
      expect(await axeProblems(page)).toEqual([]);
      await page.mouse.move(0, 0);
      await shoot(page, 'device');
      if (process.env.HEED_SCREENSHOT_DIR)
        await page.screenshot({
          path: join(process.env.HEED_SCREENSHOT_DIR, viewport.width < 760 ? 'device-phone.png' : 'device.png'),
        });

      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('heading', { name: 'Terminal signed in' }).waitFor();
      await page.getByText('You can go back to your terminal.', { exact: false }).waitFor();
      expect(
        await page.getByRole('heading', { name: 'Terminal signed in' }).evaluate((h) => h === document.activeElement),
      ).toBe(true);
      await shoot(page, 'device-approved');
      // One look-up for the visit (each counts against the person's ten a minute), even with React's
      // StrictMode running effects twice (the tests' build is a development one).
      expect(lookups).toBe(1);

      const got = await poll(started.deviceCode);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ userId: user, scopes: ['read', 'answer'] });
      const me = await fetch(`${harness.url}/api/me`, {
        headers: { authorization: `Bearer ${String(got.body.token)}` },
      });
      expect(((await me.json()) as { userId: string }).userId).toBe(user);

      // Its token is on the Tokens page.
      await page.getByRole('link', { name: 'Tokens', exact: true }).locator('visible=true').first().click();
      await page.getByRole('heading', { name: `heed inbox on ${clientName}`, level: 3 }).waitFor();
      await context.close();
    });
  }

  it('a code typed by hand, in any case and spacing; Deny turns the terminal away; an unknown code says so', async () => {
    const started = await begin('build-box');
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-cy');
    await page.goto('/auth/device');
    const field = page.getByLabel('The code your terminal shows');

    await field.fill('BCDF-BCDF');
    await field.press('Enter');
    await page.getByRole('alert').getByText('No terminal is waiting with that code', { exact: false }).waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    // The keyboard is back in the field, to fix the code.
    await expect.poll(() => field.evaluate((element) => element === document.activeElement)).toBe(true);
    await shoot(page, 'device-unknown');

    await field.fill(started.userCode.toLowerCase().replace('-', ' '));
    await page.getByRole('button', { name: 'Continue' }).click();
    await question(page, 'build-box').waitFor();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('heading', { name: 'Terminal turned away' }).waitFor();
    await page.getByText('You can go back to your terminal.', { exact: false }).waitFor();
    expect((await poll(started.deviceCode)).body.error).toMatchObject({ code: 'access_denied' });
    await context.close();
  });

  it('not signed in: signing in brings the person back to the code, which they then approve', async () => {
    const started = await begin('dee-desktop');
    const context = await newContext(harness);
    const page = await context.newPage();
    await page.goto(started.page);
    await page.waitForURL(`**/sign-in?next=${encodeURIComponent(started.page)}`);
    await page.getByLabel('Access token').fill('tok-dee');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await question(page, 'dee-desktop').waitFor();
    expect(new URL(page.url()).pathname).toBe('/auth/device');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Terminal signed in' }).waitFor();
    expect((await poll(started.deviceCode)).body).toMatchObject({ userId: 'dee' });

    // Anonymous in the console: asked to sign in, not shown the buttons.
    const other = await begin('someone-else');
    const anonymous = await newContext(harness);
    const anonymousPage = await anonymous.newPage();
    await signIn(anonymousPage);
    await anonymousPage.goto(other.page);
    await anonymousPage.getByText('Sign in first', { exact: false }).waitFor();
    expect(await anonymousPage.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await anonymousPage.getByRole('link', { name: 'Sign in', exact: true }).click();
    await anonymousPage.waitForURL(`**/sign-in?next=${encodeURIComponent(other.page)}`);
    await anonymous.close();
    await context.close();
  });

  it('signed in with single sign-on: the approval rides the session cookie with its CSRF header, and so does making a token', async () => {
    const started = await begin('eve-workstation');
    const context = await newContext(harness);
    const page = await context.newPage();
    await page.goto(started.page);
    await page.waitForURL(`**/sign-in?next=${encodeURIComponent(started.page)}`);
    await page.getByRole('link', { name: 'Sign in with Example SSO' }).click();
    await page.waitForURL(`${provider.issuer}/**`);
    await page.locator('input[name="login"]').fill('eve');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.waitForURL(`${harness.url}${started.page}`);
    await question(page, 'eve-workstation').waitFor();
    const approval = page.waitForRequest((request) => request.url().endsWith('/auth/device/approve'));
    await page.getByRole('button', { name: 'Approve' }).click();
    const headers = await (await approval).allHeaders();
    expect(headers['x-heed-csrf']).toMatch(/^[\w-]{20,}$/);
    expect(headers.authorization).toBeUndefined();
    await page.getByRole('heading', { name: 'Terminal signed in' }).waitFor();
    expect((await poll(started.deviceCode)).body).toMatchObject({ userId: 'eve', scopes: ['read', 'answer'] });

    // The Tokens page works on the same cookie session: it lists the terminal's token and makes another.
    await page.getByRole('link', { name: 'Tokens', exact: true }).locator('visible=true').first().click();
    await page.getByRole('heading', { name: 'heed inbox on eve-workstation', level: 3 }).waitFor();
    await page.getByLabel('Name').fill('eve script');
    await page.getByRole('button', { name: 'Make token' }).click();
    const secret = await page.getByRole('textbox', { name: 'New token' }).inputValue();
    const me = await fetch(`${harness.url}/api/me`, { headers: { authorization: `Bearer ${secret}` } });
    expect(((await me.json()) as { userId: string }).userId).toBe('eve');
    await context.close();
  });
});
