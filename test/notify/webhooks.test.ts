import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startServer, type TestServer } from '../http-fixtures.js';
import { eventually, webhookReceiver } from './receivers.js';

const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;
const fast = { retry: { firstDelayMs: 50, maxDelayMs: 200 }, pollIntervalMs: 50 };

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function pausedOnRefund(server: TestServer) {
  const created = await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } });
  const turn = await server.api('POST', `/api/conversations/${created.body.id}/messages`, {
    token: 'ada',
    body: { content: 'refund please' },
  });
  expect(turn.body.status).toBe('requires_action');
  return { conversationId: created.body.id as string, action: turn.body.pendingActions[0] };
}

const tokenOf = (page: string) => new URL(page).pathname.split('/').at(-1)!;

describe('webhooks and answer links over real HTTP', () => {
  it('pause → signed webhook → link followed → answer recorded as the recipient over channel link → the turn continues once', async () => {
    const receiver = await webhookReceiver();
    cleanup.push(receiver.close);
    const server = await startServer({ notify: { webhooks: [{ url: receiver.url, secret }], ...fast } });
    cleanup.push(server.close);

    const { conversationId, action } = await pausedOnRefund(server);
    const [required] = await receiver.until((calls) => calls.length >= 1);
    // Verified with the Standard Webhooks library itself: throws on a bad signature or a stale timestamp.
    const verified = new Webhook(secret).verify(required.body, required.headers as Record<string, string>) as {
      type: string;
      timestamp: string;
      data: {
        action: { id: string; kind: string; args: unknown; status: string };
        conversation: unknown;
        links: Record<string, string>;
      };
    };
    expect(verified.type).toBe('action.required');
    expect(required.headers['webhook-id']).toMatch(/^msg_/);
    expect(verified.data.action).toMatchObject({
      id: action.id,
      kind: 'approval',
      status: 'pending',
      args: { orderId: 42, amount: 5 },
    });
    expect(verified.data.conversation).toEqual({ id: conversationId, agent: 'support', ownerId: 'ada' });
    const links = verified.data.links;
    expect(links.page.startsWith(`${server.url}/a/`)).toBe(true);
    expect(links.allow).toBe(`${links.page}?choice=allow`);
    expect(links.deny).toBe(`${links.page}?choice=deny`);
    // A tampered body fails verification.
    expect(() =>
      new Webhook(secret).verify(required.body.replace('42', '43'), required.headers as Record<string, string>),
    ).toThrow();

    // The link, with no sign-in: reading shows the action and never answers it.
    const token = tokenOf(links.page);
    const read = await server.api('GET', `/api/links/${token}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      agent: 'support',
      recipient: 'ada',
      action: { id: action.id, status: 'pending', title: expect.any(String) },
    });
    expect(read.body.action.conversationId).toBeUndefined();
    expect(
      (await server.api('GET', `/api/conversations/${conversationId}`, { token: 'ada' })).body.runtime.status,
    ).toBe('requires_action');

    const answered = await server.api('POST', `/api/links/${token}`, {
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({
      status: 'recorded',
      action: { id: action.id, status: 'resolved', resolvedBy: 'ada', channel: 'link' },
    });

    const done = await eventually(async () => {
      const snapshot = await server.api('GET', `/api/conversations/${conversationId}`, { token: 'ada' });
      return snapshot.body.runtime.status === 'idle' ? snapshot.body : undefined;
    });
    expect(done.messages.at(-1).parts[0].text).toBe('Done.');
    expect(server.ran.get('issue_refund')).toBe(1);
    const events = (await server.api('GET', `/api/conversations/${conversationId}/events`, { token: 'ada' })).body
      .events;
    expect(events.find((event: { type: string }) => event.type === 'action.resolved').data).toMatchObject({
      resolvedBy: 'ada',
      channel: 'link',
      decision: 'allow',
    });

    // The second use: 409 with the stored answer.
    const again = await server.api('POST', `/api/links/${token}`, {
      body: { resolution: { type: 'approval', decision: 'deny' } },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'action_not_pending',
      details: { status: 'resolved', resolution: { decision: 'allow' }, resolvedBy: 'ada', channel: 'link' },
    });
    expect(server.ran.get('issue_refund')).toBe(1);

    // The answer is announced too.
    const calls = await receiver.until((all) => all.some((call) => JSON.parse(call.body).type === 'action.resolved'));
    const resolved = calls.map((call) => JSON.parse(call.body)).find((body) => body.type === 'action.resolved');
    expect(resolved.data.action).toMatchObject({ id: action.id, status: 'resolved', channel: 'link' });
    expect(resolved.data.links).toBeUndefined();
  });

  it('a tampered, foreign or made-up token is 404 not_found and says nothing more', async () => {
    const receiver = await webhookReceiver();
    cleanup.push(receiver.close);
    const server = await startServer({ notify: { webhooks: [{ url: receiver.url, secret }], ...fast } });
    cleanup.push(server.close);
    const other = await startServer({ notify: { webhooks: [{ url: receiver.url, secret }], ...fast } });
    cleanup.push(other.close);
    await pausedOnRefund(server);
    const [call] = await receiver.until((calls) => calls.length >= 1);
    const token = tokenOf(JSON.parse(call.body).data.links.page);
    const flipped = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    const answers = [
      await server.api('GET', `/api/links/${flipped}`),
      await server.api('POST', `/api/links/${flipped}`, {
        body: { resolution: { type: 'approval', decision: 'allow' } },
      }),
      await server.api('GET', '/api/links/not-a-token'),
      // Another server (another secret) does not know it.
      await other.api('GET', `/api/links/${token}`),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({
        error: { code: 'not_found', message: 'This link is not valid (it may have expired).' },
      });
    }
    expect(server.ran.get('issue_refund')).toBeUndefined();
  });

  it('a receiver that fails, then recovers, gets the delivery once, with the same id on every attempt', async () => {
    const receiver = await webhookReceiver((n) => (n <= 2 ? 503 : 204));
    cleanup.push(receiver.close);
    const server = await startServer({
      notify: { webhooks: [{ url: receiver.url, secret, events: ['action.required'] }], operators: ['bob'], ...fast },
    });
    cleanup.push(server.close);
    await pausedOnRefund(server);
    const calls = await receiver.until((all) => all.some((call) => call.status === 204));
    // Marked delivered once the 204 is in: no attempt is made after that.
    await expect
      .poll(
        async () =>
          (await server.api('GET', '/api/deliveries?status=delivered', { token: 'bob' })).body.deliveries.length,
      )
      .toBe(1);
    expect(receiver.calls.map((call) => call.status)).toEqual([503, 503, 204]);
    expect(new Set(calls.map((call) => call.headers['webhook-id'])).size).toBe(1);
    for (const call of calls) new Webhook(secret).verify(call.body, call.headers as Record<string, string>);
    const listed = await server.api('GET', '/api/deliveries?status=delivered', { token: 'bob' });
    expect(listed.body.deliveries).toEqual([
      expect.objectContaining({
        id: calls[0].headers['webhook-id'],
        status: 'delivered',
        attempts: 3,
        lastError: 'HTTP 503',
        event: 'action.required',
      }),
    ]);
  });

  it('a delivery that gives up is a delivery.failed event and is listed for operators only', async () => {
    const receiver = await webhookReceiver(() => 500);
    cleanup.push(receiver.close);
    const server = await startServer({
      notify: {
        webhooks: [{ url: receiver.url, secret, events: ['action.required'] }],
        operators: ['bob'],
        retry: { firstDelayMs: 50, maxDelayMs: 100, giveUpAfterMs: 400 },
        pollIntervalMs: 50,
      },
    });
    cleanup.push(server.close);
    const { conversationId, action } = await pausedOnRefund(server);
    const failed = await eventually(async () => {
      const events = (await server.api('GET', `/api/conversations/${conversationId}/events`, { token: 'ada' })).body
        .events;
      return events.find((event: { type: string }) => event.type === 'delivery.failed');
    });
    expect(failed.data).toMatchObject({
      actionId: action.id,
      event: 'action.required',
      target: 'webhook',
      error: 'HTTP 500',
    });
    expect(failed.data.attempts).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(failed.data)).not.toContain(receiver.url);

    const listed = await server.api('GET', '/api/deliveries?status=failed', { token: 'bob' });
    expect(listed.status).toBe(200);
    expect(listed.body.deliveries).toEqual([
      expect.objectContaining({
        id: failed.data.deliveryId,
        conversationId,
        status: 'failed',
        target: { type: 'webhook', url: receiver.url },
        lastError: 'HTTP 500',
      }),
    ]);
    // The owner of the conversation is no operator, and neither is an anonymous caller.
    for (const token of ['ada', undefined]) {
      const refused = await server.api('GET', '/api/deliveries?status=failed', { token });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
    }
  });
});
