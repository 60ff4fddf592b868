import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { click, fakeSlack, mention, sendToHeed, type FakeSlack, type SlackCall } from '../../test/slack/fake-slack.js';
import { mailCapture, type CapturedMail } from '../notify/mail-capture.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';

/**
 * A request nobody answered reads as lapsed wherever a person reads it, never as "Denied", over real
 * HTTP with the server's clock moved by hand and the lapse sweep run by the test (docs/approvals.md):
 * the Slack card as edited and the answer to a click after it, the mail as sent, what the answer page
 * reads (`GET /api/links/<token>`), the `action.resolved` event's summary, and the model reads the
 * configured `hitl.lapseMessage`. The console and the answer page themselves: test/browser/lapsed.test.ts;
 * the terminal inbox: src/cli/inbox/inbox-lapsed.test.tsx.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const secret = 'slack-signing-secret-for-tests';
const LAPSE_MESSAGE = 'Nobody on the billing team answered in time; tell the customer we will follow up.';
let server: TestServer | undefined;
let slack: FakeSlack | undefined;
let dir: string | undefined;

afterEach(async () => {
  await server?.close();
  await slack?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = slack = dir = undefined;
});

/** The mail's text as sent: the .eml the capture wrote, quoted-printable soft breaks joined. */
function mailText(mail: CapturedMail): string {
  return readFileSync(mail.file, 'utf8').replace(/=\r?\n/g, '');
}

describe('a lapsed request, on every surface', () => {
  it('says "Lapsed: nobody answered in time" on Slack, in the mail, the link, the event log; the model reads hitl.lapseMessage', async () => {
    let now = new Date('2026-03-01T09:00:00Z');
    slack = await fakeSlack();
    dir = mkdtempSync(join(tmpdir(), 'heed-lapsed-'));
    const mails: CapturedMail[] = [];
    const model = scriptedModel(
      ({ messages }) =>
        messages.at(-1)?.role === 'tool'
          ? { text: 'Noted.' }
          : { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 7, amount: 12 } }] },
      { keepCalls: Infinity },
    );
    server = await startServer({
      now: () => now,
      agents: [
        {
          name: 'billing',
          model,
          hitl: { timeoutMinutes: 5, lapseMessage: LAPSE_MESSAGE },
          tools: {
            issue_refund: tool({
              inputSchema: z.object({ orderId: z.number(), amount: z.number() }),
              needsApproval: true,
              approvalTitle: (input) => `Refund $${input.amount} on order ${input.orderId}?`,
              execute: async () => ({ refunded: true }),
            }),
          },
        },
      ],
      channels: { slack: { botToken: 'xoxb-test', signingSecret: secret, agent: 'billing', apiUrl: slack.apiUrl } },
      notify: {
        pollIntervalMs: 50,
        retry: { firstDelayMs: 50, maxDelayMs: 200 },
        email: {
          transport: mailCapture({ dir, onMail: (mail) => mails.push(mail) }),
          from: 'heed@example.com',
          to: () => 'grace@example.com',
        },
      },
    });
    const api = server.api;

    // One request asked over the API (mailed), one in a Slack thread (posted there).
    const { id } = (await api('POST', '/api/conversations', { token: 'ada', body: { agent: 'billing' } })).body as Any;
    const sent = await api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'refund' } });
    expect((sent.body as Any).status).toBe('requires_action');
    await sendToHeed(server.url, secret, mention('refund please', { ts: '1700000000.000009' }));
    const posts = () => slack!.of('chat.postMessage');
    const withButtons = (call: SlackCall) =>
      (call.body.blocks ?? []).some((block: { type: string }) => block.type === 'actions');
    await slack.until(() => posts().some(withButtons));
    await until(() => mails.length >= 1);

    now = new Date('2026-03-01T09:06:00Z');
    expect((await server.heed.expireDue()).lapsed).toBe(2);

    // Slack: the posted card is edited to say it lapsed; a click after that is told the same.
    await slack.until(() => slack!.of('chat.update').length === 1);
    const edited = JSON.stringify(slack.of('chat.update')[0].body);
    expect(edited).toContain('Lapsed: nobody answered in time');
    expect(edited).not.toMatch(/denied/i);
    const request = posts().find(withButtons)!;
    await sendToHeed(server.url, secret, click({ ts: request.answer.ts, blocks: request.body.blocks }, 'Allow', 'U2'), {
      form: true,
    });
    await slack.until(() => slack!.of('chat.postEphemeral').length === 1);
    const told = slack.of('chat.postEphemeral')[0].body.text as string;
    expect(told).toContain('Lapsed: nobody answered in time');
    expect(told).not.toMatch(/denied/i);

    // The mail as sent says when it lapses, and nothing of a denial; none is sent about the lapse itself.
    const [mail] = mails;
    const text = mailText(mail);
    expect(text).toContain('This request lapses Sun, 01 Mar 2026 09:05:00 GMT.');
    for (const each of mails) expect(mailText(each)).not.toMatch(/denied/i);

    // What the answer page reads through the mail's link: the link ended with the request, and says it lapsed
    // (410, nothing of the request shown); a tampered copy of it is still just not valid (404).
    const token = mail.page!.split('/a/')[1];
    const link = await api('GET', `/api/links/${token}`);
    expect(link.status).toBe(410);
    expect((link.body as Any).error).toMatchObject({ code: 'action_expired' });
    expect((link.body as Any).error.message).toBe(
      'Lapsed: nobody answered in time: this request closed at 2026-03-01T09:05:00.000Z, so this link no longer answers it.',
    );
    expect(JSON.stringify(link.body)).not.toContain('order');
    const late = await api('POST', `/api/links/${token}`, {
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(late.status).toBe(410);
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await api('GET', `/api/links/${tampered}`)).status).toBe(404);
    expect(server.ran.get('issue_refund')).toBeUndefined();

    // The event log: the record keeps the refusal's shape (seed 002), and its summary says it lapsed.
    const events = (await api('GET', `/api/conversations/${id}/events?limit=200`, { token: 'ada' })).body as Any;
    const resolved = events.events.find((event: Any) => event.type === 'action.resolved');
    expect(resolved.data).toMatchObject({
      summary: 'Lapsed: nobody answered in time',
      channel: 'timeout',
      resolvedBy: 'system:timeout',
      expired: true,
    });

    // An AI SDK chat (useChat) shows the call as the error the model read, not as `output-denied`.
    const ui = (await api('GET', `/api/ai-sdk/chat/billing/${id}/messages`, { token: 'ada' })).body as Any;
    const part = ui.messages
      .flatMap((message: Any) => message.parts)
      .find((each: Any) => each.type === 'tool-issue_refund');
    expect(part).toMatchObject({ state: 'output-error', errorText: LAPSE_MESSAGE });

    // The model read the configured sentence for the call, never that the user denied it.
    const toolMessages = model.calls.flatMap((call) => call.messages.filter((message) => message.role === 'tool'));
    const read = JSON.stringify(toolMessages);
    expect(read).toContain(LAPSE_MESSAGE);
    expect(read).not.toMatch(/denied/i);
  });
});

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
