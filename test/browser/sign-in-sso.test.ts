import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProvider, type TestProvider } from '../oidc.js';
import { browserSkip, newContext, startConversation, startHarness, type Harness } from './harness.js';
import { scrollsSideways, shoot, viewports } from './viewports.js';

// Signing in to the console with the organization's identity: a real OpenID provider (oidc-provider) on
// loopback, its own login and consent pages, in headless Chromium.
let provider: TestProvider;
let harness: Harness;

beforeAll(async () => {
  provider = await startProvider({ people: { ada: { groups: ['finance'] } } });
  harness = await startHarness({
    auth: {
      tokens: { 'tok-bob': 'bob' },
      oidc: { issuer: provider.issuer, clientId: 'heed', clientSecret: 'heed-test-secret', name: 'Example SSO' },
    },
  });
  provider.register(harness.url);
}, 60_000);
afterAll(async () => {
  await harness?.close();
  await provider?.close();
});

describe.skipIf(browserSkip)('single sign-on in the console', { timeout: 60_000 }, () => {
  for (const viewport of viewports) {
    it(`at ${viewport.width} px: "Sign in with Example SSO" goes through the provider's login and consent and back to the page asked for; sign-out ends it there too`, async () => {
      const context = await newContext(harness, viewport);
      const page = await context.newPage();
      await page.goto('/inbox');
      await page.waitForURL('**/sign-in?next=%2Finbox');
      const button = page.getByRole('link', { name: 'Sign in with Example SSO' });
      await button.waitFor();
      expect(await scrollsSideways(page)).toBe(false);
      await shoot(page, 'sso-sign-in');
      await button.click();

      // The provider's own pages: any login and password, then its consent.
      await page.waitForURL(`${provider.issuer}/**`);
      await page.locator('input[name="login"]').fill('ada');
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();

      await page.waitForURL(`${harness.url}/inbox`);
      await page.getByRole('heading', { name: 'Inbox' }).waitFor();
      await shoot(page, 'sso-signed-in');
      // On a phone, who is signed in is in the menu.
      if (viewport.width < 600) await page.getByRole('button', { name: 'Conversations' }).click();
      await expect.poll(() => page.getByText('Signed in as ada').locator('visible=true').count()).toBe(1);
      // The cookie is out of the page's reach; writes carry the CSRF header the console read.
      expect(await page.evaluate(() => document.cookie)).not.toContain('heed_session');
      const cookies = await context.cookies(harness.url);
      expect(cookies.find((cookie) => cookie.name === 'heed_session')).toMatchObject({
        httpOnly: true,
        sameSite: 'Lax',
      });
      await page.goto('/');
      await startConversation(page, 'refunds');
      const conversations = await (
        await fetch(`${harness.url}/api/conversations`, { headers: { authorization: 'Bearer tok-bob' } })
      ).json();
      expect(conversations.conversations).toHaveLength(0); // ada's, not bob's

      await page.goto('/');
      await page.getByRole('button', { name: 'Sign out' }).click();
      // The provider's end-session page asks to confirm the sign-out there.
      await page.waitForURL(`${provider.issuer}/**`);
      expect((await context.cookies(harness.url)).some((cookie) => cookie.name === 'heed_session')).toBe(false);
      await context.close();
    });
  }
});
