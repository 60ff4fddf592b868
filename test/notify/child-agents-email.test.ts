import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../http-fixtures.js';
import { eventually, smtpReceiver } from './receivers.js';
import { leadOps } from '../fixtures/lead-ops.js';

/**
 * Agents that call agents by mail (real SMTP, real HTTP): the child's approval is mailed as the lead's (the
 * agent a person asked, the child named in the body), its link answers the request the parent lists, once,
 * and the parent goes on.
 */

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1].replaceAll('&amp;', '&'));

describe('a child agent’s request by mail', () => {
  it("the mailed link of the child's approval answers the request the parent lists, once, and the parent goes on", async () => {
    const smtp = await smtpReceiver();
    cleanup.push(smtp.close);
    const restarts: string[] = [];
    const server: TestServer = await startServer({
      agents: leadOps({ restarts }),
      notify: {
        email: {
          transport: smtp.transport,
          from: 'Heed <heed@example.com>',
          to: ({ conversation }) => (conversation.ownerId === 'ada' ? ['ada@example.com'] : null),
        },
        retry: { firstDelayMs: 100, maxDelayMs: 200 },
        pollIntervalMs: 50,
      },
    });
    cleanup.push(server.close);
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'lead' } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'go' },
    });
    const [pending] = sent.body.pendingActions;
    expect(pending.via).toEqual([{ agent: 'ops', conversationId: expect.any(String) }]);

    await smtp.until(() => smtp.mails.length === 1);
    const [mail] = smtp.mails;
    // Named as the lead's request: the agent ada asked, and through it the child that asks.
    expect(mail.subject).toBe('[lead] Approve? Run restart?');
    expect(mail.text).toContain('Requested by ada, through the agent lead, which asked the agent ops.');
    expect(String(mail.html)).toContain('through the agent <b>lead</b>, which asked the agent <b>ops</b>.');
    expect(mail.text).toContain('restart');
    const allow = hrefs(String(mail.html)).find((href) => href.endsWith('?choice=allow'))!;
    const token = new URL(allow).pathname.split('/').at(-1)!;
    const read = await fetch(`${server.url}/api/links/${token}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ recipient: 'ada@example.com', action: { id: pending.id } });

    const answered = await server.api('POST', `/api/links/${token}`, {
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    await eventually(async () => {
      const parent = (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body;
      return parent.runtime.status === 'idle' ? parent : undefined;
    });
    const parent = (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body;
    expect(parent.messages.at(-1).parts[0].text).toBe('Done: Restarted web.');
    expect(parent.runtime.pendingActionIds).toEqual([]);
    expect(restarts).toEqual(['web']);

    const again = await server.api('POST', `/api/links/${token}`, {
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(again.status).toBe(409);
    expect(restarts).toEqual(['web']);
  });
});
