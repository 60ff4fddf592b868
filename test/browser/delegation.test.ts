import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkip, newContext, signIn, startHarness, type Harness } from './harness.js';
import { axeProblems, layoutReport } from './page-checks.js';

/**
 * Delegation in the console (docs/approvals.md, Delegation), in Chromium: grace hands her requests to bob
 * from the inbox page's Delegation section; bob finds grace's request in his inbox marked "for grace" and
 * allows it there; ada's conversation then says it was allowed by "bob for grace"; grace stops delegating.
 */

let harness: Harness;

async function api(token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${harness.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as Record<string, any>;
}

beforeAll(async () => {
  harness = await startHarness({
    auth: {
      tokens: { 'tok-ada': { userId: 'ada' }, 'tok-bob': { userId: 'bob' }, 'tok-grace': { userId: 'grace' } },
    },
  });
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

describe.skipIf(browserSkip)('delegation in the console', { timeout: 90_000 }, () => {
  it('grace delegates to bob; bob answers her request from his inbox; the record reads "bob for grace"', async () => {
    const request = await api('tok-ada', 'POST', '/api/requests', {
      request: { kind: 'approval', title: 'Rotate the signing keys?' },
      assignees: ['grace'],
    });

    const graceContext = await newContext(harness);
    const grace = await graceContext.newPage();
    await signIn(grace, 'tok-grace');
    await grace.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox' }).click();
    const section = grace.getByRole('region', { name: 'Delegation' });
    await section.getByLabel('Hand my requests to').fill('grace');
    await section.getByRole('button', { name: 'Delegate' }).click();
    // Refused by the server with its sentence; nothing set.
    await section.getByRole('alert').getByText('You cannot delegate to yourself.').waitFor();
    await section.getByLabel('Hand my requests to').fill('bob');
    await section.getByLabel('until').fill('2099-01-02T09:00');
    await section.getByRole('button', { name: 'Delegate' }).click();
    await section.getByText(/Your requests also go to bob until/).waitFor();
    expect((await api('tok-grace', 'GET', '/api/me/delegation')).delegation).toMatchObject({ to: 'bob' });
    expect(await axeProblems(grace)).toEqual([]);
    const layout = await layoutReport(grace);
    expect(layout.overflowing).toEqual([]);

    const bobContext = await newContext(harness, { width: 390, height: 844 });
    const bob = await bobContext.newPage();
    await signIn(bob, 'tok-bob');
    await bob.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox' }).click();
    const row = bob.locator('.inbox-item').filter({ hasText: 'Rotate the signing keys?' });
    await row.getByText(/for grace/).waitFor();
    await bob.getByRole('region', { name: 'Delegation' }).getByText('You answer for grace').waitFor();
    await row.getByRole('button', { name: 'Allow' }).click();
    // Answered, it leaves the inbox (the live stream removes it).
    await row.waitFor({ state: 'detached' });
    expect(await api('tok-ada', 'GET', `/api/requests/${request.id}`)).toMatchObject({
      status: 'resolved',
      resolvedBy: 'bob',
      answeredFor: 'grace',
    });

    const adaContext = await newContext(harness);
    const ada = await adaContext.newPage();
    await signIn(ada, 'tok-ada');
    await ada.goto(`/c/${encodeURIComponent(request.conversationId)}`);
    await ada
      .getByText(/bob for grace/)
      .first()
      .waitFor();

    await section.getByRole('button', { name: 'Stop delegating' }).click();
    await section.getByLabel('Hand my requests to').waitFor();
    expect((await api('tok-grace', 'GET', '/api/me/delegation')).delegation).toBeNull();
    await Promise.all([graceContext.close(), bobContext.close(), adaContext.close()]);
  });
});
