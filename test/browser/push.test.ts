import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { pushService } from '../notify/push-service.js';
import { browserSkip, newContext, signIn, startHarness, unlabelledControls, type Harness } from './harness.js';
import { outsideViewport, scrollsSideways, viewports } from './viewports.js';

// The console as an installable app that gets pushed requests (docs/notifications.md, Push), in real
// headless Chromium. A real push takes the loopback push service's path (encrypted, signed), and the very
// payload it decrypted is handed to the console's service worker through the DevTools protocol, as a
// browser's push service would. Headless Chromium shows no system notification to press, so the test calls
// the worker's click handler itself, with the button's action.
/** The worker's global, as the code evaluated in it sees it. */
type WorkerScope = {
  registration: ServiceWorkerRegistration;
  answerFromNotification: (notification: unknown, action: string) => Promise<unknown>;
};
let harness: Harness;
let service: Awaited<ReturnType<typeof pushService>>;

beforeAll(async () => {
  service = await pushService();
  harness = await startHarness({
    notify: {
      push: { subject: 'mailto:ops@example.com', allowEndpoints: [service.hostPort] },
      pollIntervalMs: 50,
    },
  });
}, 60_000);
afterAll(async () => {
  await harness?.close();
  await service?.close();
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${harness.url}${path}`, {
    method,
    headers: { authorization: 'Bearer tok-ada', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json();
}

/** The console's service worker once it runs, and the DevTools id of its registration. */
async function consoleWorker(
  context: BrowserContext,
  page: Page,
): Promise<{ worker: Worker; registrationId: string; cdp: CDPSession }> {
  const cdp = await context.newCDPSession(page);
  let registrationId: string | undefined;
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
    const ours = registrations.find((entry) => !entry.isDeleted && entry.scopeURL === `${harness.url}/`);
    if (ours) registrationId = ours.registrationId;
  });
  await cdp.send('ServiceWorker.enable');
  const scriptUrl = await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.scriptURL);
  expect(scriptUrl).toBe(`${harness.url}/sw.js`);
  await expect.poll(() => registrationId).toBeDefined();
  await expect.poll(() => context.serviceWorkers().length).toBeGreaterThan(0);
  return { worker: context.serviceWorkers()[0], registrationId: registrationId!, cdp };
}

describe.skipIf(browserSkip)('the console gets pushed requests', { timeout: 60_000 }, () => {
  it('is installable: the manifest, its icons and the service worker load', async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-ada');
    const manifest = await page.evaluate(async () => {
      const link = document.querySelector<HTMLLinkElement>('link[rel="manifest"]')!;
      const response = await fetch(link.href);
      const body = await response.json();
      const icons = await Promise.all(
        body.icons.map(async (icon: { src: string }) => (await fetch(icon.src)).headers.get('content-type')),
      );
      return { type: response.headers.get('content-type'), display: body.display, icons };
    });
    expect(manifest).toMatchObject({
      type: expect.stringContaining('application/manifest+json'),
      display: 'standalone',
    });
    expect(manifest.icons).toEqual(['image/png', 'image/png', 'image/png', 'image/svg+xml']);
    await consoleWorker(context, page);
    await context.close();
  });

  it('a pushed approval shows with Allow and Deny; Allow answers it through the link and shows the outcome', async () => {
    const context = await newContext(harness);
    await context.grantPermissions(['notifications'], { origin: harness.url });
    const page = await context.newPage();
    await signIn(page, 'tok-ada');
    await page.goto('/inbox');
    const { worker, registrationId, cdp } = await consoleWorker(context, page);

    // ada's phone is subscribed (the loopback push service stands for a real one): a request waits on her.
    await api('POST', '/api/me/push-subscriptions', service.subscribe('ada-phone'));
    const conversation = await api('POST', '/api/conversations', { agent: 'refunds' });
    const turn = await api('POST', `/api/conversations/${conversation.id}/messages`, {
      content: 'refund order 42 for $30',
    });
    const actionId = turn.pendingActions[0].id as string;
    await expect.poll(() => service.received.filter((push) => push.payload.tag === actionId).length).toBe(1);
    const pushed = service.received.find((push) => push.payload.tag === actionId)!;

    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: harness.url,
      registrationId,
      data: JSON.stringify(pushed.payload),
    });
    const shown = () =>
      worker.evaluate(async () =>
        (await (self as unknown as WorkerScope).registration.getNotifications()).map((notification: Notification) => ({
          title: notification.title,
          body: notification.body,
          tag: notification.tag,
          actions: (notification as unknown as { actions: Array<{ action: string; title: string }> }).actions.map(
            (entry) => ({ action: entry.action, title: entry.title }),
          ),
        })),
      );
    await expect.poll(shown).toEqual([
      {
        title: pushed.payload.title,
        body: pushed.payload.body,
        tag: actionId,
        actions: [
          { action: 'allow', title: 'Allow' },
          { action: 'deny', title: 'Deny' },
        ],
      },
    ]);

    // Pressing Allow: the worker posts the answer link, opens no window, and shows how it went.
    const pressed = await worker.evaluate(async (tag) => {
      const worker = self as unknown as WorkerScope;
      const [notification] = await worker.registration.getNotifications({ tag });
      return worker.answerFromNotification(notification, 'allow');
    }, actionId);
    expect(pressed).toEqual({ status: 200, outcome: 'Allow: sent.' });
    const { actions } = await api('GET', `/api/conversations/${conversation.id}/actions`);
    expect(actions[0]).toMatchObject({
      status: 'resolved',
      resolution: { decision: 'allow' },
      resolvedBy: 'ada',
      channel: 'link',
    });
    await expect
      .poll(async () => (await shown()).map((entry) => [entry.tag, entry.body, entry.actions]))
      .toEqual([[actionId, 'Allow: sent.', []]]);
    expect(context.pages()).toHaveLength(1);

    // A second press of the same button (the notification on another device) is told someone was first.
    const again = await worker.evaluate(
      async (notification) => {
        return (self as unknown as WorkerScope).answerFromNotification(notification, 'allow');
      },
      {
        title: pushed.payload.title,
        tag: actionId,
        data: {
          url: pushed.payload.url,
          link: pushed.payload.link,
          answers: { allow: { title: 'Allow', answer: pushed.payload.actions[0].answer } },
        },
      },
    );
    expect(again).toEqual({ status: 409, outcome: 'Someone answered it first.' });
    await context.close();
  });

  for (const viewport of viewports)
    it(`"Notify this device" on the inbox at ${viewport.width} px: labelled, inside the screen`, async () => {
      const context = await newContext(harness, viewport);
      const page = await context.newPage();
      await signIn(page, 'tok-ada');
      await page.goto('/inbox');
      const button = page.getByRole('button', { name: 'Notify this device' });
      await button.waitFor();
      expect(await outsideViewport(page, page.locator('.push-panel, .push-panel button'))).toEqual([]);
      expect(await scrollsSideways(page)).toBe(false);
      expect(await unlabelledControls(page)).toEqual([]);
      await context.close();
    });
});
