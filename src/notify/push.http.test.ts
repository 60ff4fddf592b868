import { afterEach, describe, expect, it } from 'vitest';
import { startServer, tokens, type TestServer } from '../../test/http-fixtures.js';
import { pushService } from '../../test/notify/push-service.js';
import { MAX_PAYLOAD_BYTES, requestPush } from './push-payload.js';
import type { ActionView } from '../views.js';
import type { HeedConfig } from '../config.js';
import { browserAgents } from '../../test/fixtures/browser.config.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function setUp(extra: Partial<HeedConfig> = {}) {
  const service = await pushService();
  cleanup.push(service.close);
  const server = await startServer({
    ...extra,
    notify: {
      push: { subject: 'mailto:ops@example.com', allowEndpoints: [service.hostPort] },
      pollIntervalMs: 20,
      retry: { firstDelayMs: 50 },
    },
  });
  cleanup.push(() => server.close());
  return { service, server };
}

/** Starts a conversation as `token` that asks for an approval; resolves with its id and the action's. */
async function askApproval(server: TestServer, token: string) {
  const created = await server.api('POST', '/api/conversations', { token, body: { agent: 'support' } });
  const sent = await server.api('POST', `/api/conversations/${created.body.id}/messages`, {
    token,
    body: { content: 'refund please' },
  });
  expect(sent.status).toBe(200);
  return { conversationId: created.body.id as string, actionId: sent.body.pendingActions[0].id as string };
}

describe('Web Push: subscriptions', () => {
  it('GET /api/push/key is 404 without notify.push, the subscription routes too', async () => {
    const server = await startServer();
    cleanup.push(() => server.close());
    expect(await server.api('GET', '/api/push/key')).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
    expect((await server.api('GET', '/api/me/push-subscriptions', { token: 'ada' })).status).toBe(404);
  });

  it('a person adds, lists (endpoints only), replaces and removes subscriptions; anonymous callers may not', async () => {
    const { service, server } = await setUp();
    const key = await server.api('GET', '/api/push/key');
    expect(key.status).toBe(200);
    // The VAPID key kept in the store: the same on every read, a P-256 point.
    expect(Buffer.from(key.body.publicKey, 'base64url')).toHaveLength(65);
    expect((await server.api('GET', '/api/push/key')).body.publicKey).toBe(key.body.publicKey);

    const phone = service.subscribe('phone');
    expect((await server.api('POST', '/api/me/push-subscriptions', { body: phone })).status).toBe(403);
    const added = await server.api('POST', '/api/me/push-subscriptions', { token: 'ada', body: phone });
    expect(added.status).toBe(200);
    expect(added.body.subscriptions).toEqual([{ endpoint: phone.endpoint, createdAt: expect.any(String) }]);
    // The same endpoint again replaces it; someone else's list does not show it.
    await server.api('POST', '/api/me/push-subscriptions', { token: 'ada', body: phone });
    const listed = await server.api('GET', '/api/me/push-subscriptions', { token: 'ada' });
    expect(listed.body.subscriptions).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(phone.keys.auth);
    expect((await server.api('GET', '/api/me/push-subscriptions', { token: 'bob' })).body.subscriptions).toEqual([]);

    const removed = await server.api(
      'DELETE',
      `/api/me/push-subscriptions?endpoint=${encodeURIComponent(phone.endpoint)}`,
      {
        token: 'ada',
      },
    );
    expect(removed).toMatchObject({ status: 200, body: { subscriptions: [] } });
  });

  it("erasing a person removes their devices and the index naming them; someone else's stay", async () => {
    const { service, server } = await setUp({
      auth: { tokens: { ...tokens, root: { userId: 'root' } }, admins: ['root'] },
    });
    const phone = service.subscribe('phone');
    const laptop = service.subscribe('laptop');
    expect((await server.api('POST', '/api/me/push-subscriptions', { token: 'ada', body: phone })).status).toBe(200);
    expect((await server.api('POST', '/api/me/push-subscriptions', { token: 'bob', body: laptop })).status).toBe(200);
    const erased = await server.api('DELETE', '/api/people/ada', { token: 'root' });
    expect(erased.status).toBe(200);
    const store = server.heed.store!;
    expect(await store.listValues('push-subscriptions:ada')).toEqual([]);
    const index = await store.listValues('push-endpoints');
    expect(index).toHaveLength(1);
    expect(JSON.stringify(index)).not.toContain('ada');
    expect((await server.api('GET', '/api/me/push-subscriptions', { token: 'bob' })).body.subscriptions).toHaveLength(
      1,
    );
  });

  it('keeps at most 20 devices a person: the oldest goes', async () => {
    const { service, server } = await setUp();
    const endpoints: string[] = [];
    for (let n = 0; n < 21; n++) {
      const device = service.subscribe(`d${n}`);
      endpoints.push(device.endpoint);
      expect((await server.api('POST', '/api/me/push-subscriptions', { token: 'ada', body: device })).status).toBe(200);
    }
    const listed = (await server.api('GET', '/api/me/push-subscriptions', { token: 'ada' })).body.subscriptions;
    expect(listed.map((entry: { endpoint: string }) => entry.endpoint).sort()).toEqual(endpoints.slice(1).sort());
  });

  it('refuses an endpoint that is not https on a public address, unless its host:port is listed', async () => {
    const { service, server } = await setUp();
    const keys = service.subscribe('x').keys;
    for (const endpoint of [
      'http://fcm.googleapis.com/fcm/send/abc',
      'https://127.0.0.1/push',
      'https://10.1.2.3/push',
      'https://169.254.169.254/latest',
      'https://[::1]/push',
      'https://localhost/push',
      'https://push.internal/x',
      `http://${service.hostPort.replace('127.0.0.1', 'localhost')}/push/x`,
      `http://127.0.0.1:1/push/x`,
    ]) {
      const refused = await server.api('POST', '/api/me/push-subscriptions', {
        token: 'ada',
        body: { endpoint, keys },
      });
      expect(refused, endpoint).toMatchObject({ status: 400, body: { error: { code: 'push_endpoint_not_allowed' } } });
    }
    const real = await server.api('POST', '/api/me/push-subscriptions', {
      token: 'ada',
      body: { endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys },
    });
    expect(real.status).toBe(200);
    const badKeys = await server.api('POST', '/api/me/push-subscriptions', {
      token: 'ada',
      body: { endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys: { p256dh: 'abc', auth: keys.auth } },
    });
    expect(badKeys).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
  });
});

describe('Web Push: each request for a person', () => {
  it('pushes the request, encrypted and signed, to the person asked only; its Allow answers once; the outcome replaces it', async () => {
    const { service, server } = await setUp();
    await server.api('POST', '/api/me/push-subscriptions', { token: 'ada', body: service.subscribe('ada-phone') });
    await server.api('POST', '/api/me/push-subscriptions', { token: 'ada', body: service.subscribe('ada-laptop') });
    await server.api('POST', '/api/me/push-subscriptions', { token: 'bob', body: service.subscribe('bob-phone') });
    const { conversationId, actionId } = await askApproval(server, 'ada');

    await expect.poll(() => service.received.length).toBe(2);
    expect(service.problems).toEqual([]);
    expect(service.received.map((push) => push.device).sort()).toEqual(['ada-laptop', 'ada-phone']);
    const [push] = service.received;
    // VAPID: the key the server hands browsers, a JWT for this push service's origin, naming the operator.
    const { publicKey } = (await server.api('GET', '/api/push/key')).body;
    expect(push.vapidKey).toBe(publicKey);
    expect(push.claims).toMatchObject({ aud: `http://${service.hostPort}`, sub: 'mailto:ops@example.com' });
    expect(push.headers.ttl).toBeDefined();
    expect(push.payload).toMatchObject({
      title: expect.stringContaining('support'),
      url: `${server.url}/c/${conversationId}`,
      link: expect.stringMatching(new RegExp(`^${server.url}/a/[A-Za-z0-9_-]+$`)),
      tag: actionId,
      actions: [
        { action: 'allow', title: 'Allow', answer: { type: 'approval', decision: 'allow' } },
        { action: 'deny', title: 'Deny', answer: { type: 'approval', decision: 'deny' } },
      ],
    });
    expect(push.payload.body).toContain('issue_refund');

    // What the service worker does when Allow is pressed: the answer link, with the button's answer.
    const token = push.payload.link!.split('/a/')[1];
    const allow = push.payload.actions.find((choice) => choice.action === 'allow')!;
    const answered = await server.api('POST', `/api/links/${token}`, { body: { resolution: allow.answer } });
    expect(answered).toMatchObject({ status: 200, body: { status: 'recorded', action: { status: 'resolved' } } });
    const again = await server.api('POST', `/api/links/${token}`, { body: { resolution: allow.answer } });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'action_not_pending' } } });

    // The outcome goes to the same devices with the same tag, so it replaces the notification.
    await expect.poll(() => service.received.length).toBe(4);
    const outcomes = service.received.slice(2);
    expect(outcomes.map((entry) => entry.device).sort()).toEqual(['ada-laptop', 'ada-phone']);
    expect(outcomes[0].payload).toMatchObject({ tag: actionId, settled: true, actions: [], body: 'Allowed (by ada).' });
    expect(server.ran.get('issue_refund')).toBe(1);
  });

  it('a 410 from the push service removes the subscription; the rest still get it', async () => {
    const { service, server } = await setUp();
    await server.api('POST', '/api/me/push-subscriptions', { token: 'ada', body: service.subscribe('old') });
    await server.api('POST', '/api/me/push-subscriptions', { token: 'ada', body: service.subscribe('new') });
    service.gone.add('old');
    await askApproval(server, 'ada');
    await expect.poll(() => service.received.map((push) => push.device)).toEqual(['new']);
    await expect
      .poll(async () => (await server.api('GET', '/api/me/push-subscriptions', { token: 'ada' })).body.subscriptions)
      .toEqual([{ endpoint: expect.stringMatching(/\/push\/new$/), createdAt: expect.any(String) }]);
  });

  it("a question with one choice offers its options as the notification's buttons", async () => {
    const { service, server } = await setUp();
    await server.api('POST', '/api/me/push-subscriptions', { token: 'ada', body: service.subscribe('phone') });
    const created = await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } });
    await server.api('POST', `/api/conversations/${created.body.id}/messages`, {
      token: 'ada',
      body: { content: 'ask' },
    });
    await expect.poll(() => service.received.length).toBe(1);
    // Several questions cannot be answered with one press: the notification only opens them.
    expect(service.received[0].payload.actions).toEqual([]);
    expect(service.received[0].payload.link).toBeDefined();
  });
});

describe('Web Push: a question with one choice', () => {
  it('offers its options as buttons; one answers it through the link', async () => {
    const { service, server } = await setUp({ agents: browserAgents });
    await server.api('POST', '/api/me/push-subscriptions', { token: 'ada', body: service.subscribe('phone') });
    const created = await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'confirm' } });
    await server.api('POST', `/api/conversations/${created.body.id}/messages`, {
      token: 'ada',
      body: { content: 'ship it?' },
    });
    await expect.poll(() => service.received.length).toBe(1);
    const { payload } = service.received[0];
    expect(payload.actions.map((choice) => [choice.action, choice.title])).toEqual([
      ['option-0', 'Ship today'],
      ['option-1', 'Wait until Monday'],
    ]);
    const token = payload.link!.split('/a/')[1];
    const answered = await server.api('POST', `/api/links/${token}`, {
      body: { resolution: payload.actions[1].answer },
    });
    expect(answered).toMatchObject({ status: 200, body: { action: { status: 'resolved' } } });
    expect(Object.values(answered.body.action.resolution.answers)).toEqual([['no']]);
  });
});

describe('the push payload', () => {
  it('stays under 4 KB: long arguments are cut short (the page shows them), the buttons kept', () => {
    const action = {
      id: 'act_1',
      kind: 'approval',
      status: 'pending',
      toolName: 'write_file',
      args: { text: 'x'.repeat(20_000) },
    } as unknown as ActionView;
    const payload = requestPush({
      action,
      conversation: { id: 'c1', agent: 'writer', ownerId: 'ada' },
      links: { page: 'https://heed.example.com/a/token', allow: 'a', deny: 'd' },
      consoleUrl: 'https://heed.example.com/c/c1',
    });
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(payload.body.length).toBeLessThan(500);
    expect(payload.actions.map((choice) => choice.action)).toEqual(['allow', 'deny']);
  });
});
