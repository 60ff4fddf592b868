import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../http-fixtures.js';
import { eventually, smtpReceiver } from './receivers.js';
import { engineOf } from '../../src/heed.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function serverMailing(transport: string): Promise<TestServer> {
  const server = await startServer({
    notify: {
      email: {
        transport,
        from: 'Heed <heed@example.com>',
        to: ({ conversation }) => (conversation.ownerId === 'ada' ? ['ada@example.com'] : null),
      },
      retry: { firstDelayMs: 100, maxDelayMs: 200 },
      pollIntervalMs: 50,
    },
  });
  cleanup.push(server.close);
  return server;
}

async function pause(server: TestServer, content: string, conversationId?: string) {
  const id =
    conversationId ??
    (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body.id;
  const turn = await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } });
  expect(turn.body.status).toBe('requires_action');
  return { conversationId: id as string, action: turn.body.pendingActions[0] };
}

const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1].replaceAll('&amp;', '&'));

describe('email over real SMTP', () => {
  it('pause → mail with the question and one-click options → link followed → answer recorded as the recipient → the turn continues once', async () => {
    const smtp = await smtpReceiver();
    cleanup.push(smtp.close);
    const server = await serverMailing(smtp.transport);
    const { conversationId, action } = await pause(server, 'ask me');
    await smtp.until(() => smtp.mails.length === 1);
    const [mail] = smtp.mails;
    expect(mail.subject).toBe('[support] Question: Which size? (+1 more)');
    expect(mail.to).toMatchObject({ text: 'ada@example.com' });
    expect(mail.from).toMatchObject({ text: '"Heed" <heed@example.com>' });
    expect(mail.text).toContain('Which size?');
    expect(mail.text).toContain('How many?');
    // Who asked, through which agent (issue 26, item 10).
    expect(mail.text).toContain('Requested by ada, through the agent support.');
    expect(mail.text).toMatch(/- Large: http:\/\/127\.0\.0\.1:\d+\/a\/[\w-]+\?q=size&v=l/);
    const links = hrefs(String(mail.html));
    const large = links.find((href) => href.endsWith('?q=size&v=l'))!;
    expect(large).toBeDefined();
    expect(links).toContain(large.replace('?q=size&v=l', ''));
    // Threaded per conversation: replies to a root that names no conversation id.
    expect(mail.messageId).toMatch(/^<msg_[\w-]+@example\.com>$/);
    expect(mail.inReplyTo).toMatch(/^<thread\.[0-9a-f]{32}@example\.com>$/);
    expect(mail.references).toBe(mail.inReplyTo);
    expect(mail.headerLines.map((line) => line.line).join('\n')).not.toContain(conversationId);

    // Following the link over real HTTP: the page's API reads the action, and its POST answers it.
    const token = new URL(large).pathname.split('/').at(-1)!;
    const read = await fetch(`${server.url}/api/links/${token}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({
      recipient: 'ada@example.com',
      requester: 'ada',
      agent: 'support',
      action: { id: action.id, kind: 'question' },
    });
    const answered = await server.api('POST', `/api/links/${token}`, {
      body: { resolution: { type: 'question', answers: { size: 'l', qty: '3' } } },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.action).toMatchObject({
      status: 'resolved',
      resolvedBy: 'ada@example.com',
      channel: 'link',
      resolution: { answers: { size: ['l'], qty: ['3'] } },
    });
    await eventually(async () =>
      (await server.api('GET', `/api/conversations/${conversationId}`, { token: 'ada' })).body.runtime.status === 'idle'
        ? true
        : undefined,
    );
    const again = await server.api('POST', `/api/links/${token}`, {
      body: { resolution: { type: 'question', answers: { size: 's' } } },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({
      resolvedBy: 'ada@example.com',
      channel: 'link',
      resolution: { answers: { size: ['l'] } },
    });

    // The next request of the same conversation lands in the same thread; an approval shows its arguments.
    await pause(server, 'refund now', conversationId);
    await smtp.until(() => smtp.mails.length === 2);
    const second = smtp.mails[1];
    expect(second.subject).toMatch(/^\[support\] Approve\? /);
    expect(second.text).toContain('"orderId": 42');
    expect(second.references).toBe(mail.references);
    expect(second.messageId).not.toBe(mail.messageId);
    expect(hrefs(String(second.html)).some((href) => href.endsWith('?choice=allow'))).toBe(true);
  });

  it('no stale reminder: a mail that could not be sent before the action was answered is dropped, not sent late', async () => {
    // The SMTP server refuses the first try with a temporary failure.
    const smtp = await smtpReceiver((n) => n === 1);
    cleanup.push(smtp.close);
    const server = await serverMailing(smtp.transport);
    const { conversationId, action } = await pause(server, 'refund please');
    await smtp.until(() => smtp.tries === 1);
    const answered = await server.api('POST', `/api/conversations/${conversationId}/actions/${action.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    const dropped = await eventually(async () => {
      const [found] = await engineOf(server.heed).store.listDeliveries({ status: 'dropped' });
      return found;
    });
    expect(dropped).toMatchObject({
      actionId: action.id,
      target: { type: 'email', to: 'ada@example.com' },
      lastError: 'the action is no longer pending (resolved)',
    });
    expect(smtp.tries).toBe(1);
    expect(smtp.mails).toHaveLength(0);
  });
});
