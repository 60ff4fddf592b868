import { describe, expect, it } from 'vitest';
import { urlView } from '../../test/fixtures/url-action.js';
import type { ApprovalActionView } from '../views.js';
import { composeActionMail, genericMailBody } from './email.js';

/* A kind with no mail body of its own (test/fixtures/url-action.ts) shows through its presentation. */
describe('the generic mail body', () => {
  it("a mail's generic body says what is asked, who asked, through which agent, and links to the answer page", () => {
    const out = { html: [] as string[], text: [] as string[] };
    genericMailBody(
      urlView,
      { page: 'https://heed.example/answer/t0k3n' },
      { agent: 'scheduler', requester: 'ada' },
      out,
    );
    expect(out.text.join('\n')).toBe(
      [
        'Connect your calendar',
        'Please open: Connect your calendar',
        'Requested by ada, through the agent scheduler.',
        '',
        'Answer: https://heed.example/answer/t0k3n',
      ].join('\n'),
    );
    expect(out.html.join('')).toContain('href="https://heed.example/answer/t0k3n"');
  });
});

const approval: ApprovalActionView = {
  id: 'a1',
  kind: 'approval',
  conversationId: 'c1',
  messageId: 'm1',
  toolCallId: 't1',
  toolName: 'issue_refund',
  status: 'pending',
  createdAt: '2030-01-01T00:00:00.000Z',
  args: { orderId: 42, amount: 30 },
  title: 'Refund $30 on order 42?',
  summary: 'Money goes back to the card.',
  canRemember: true,
};

describe('who asked, in every mail', () => {
  const mail = (conversation: { ownerId: string | null; channel?: string | null }) =>
    composeActionMail({
      deliveryId: 'd1',
      action: approval,
      conversation: { id: 'c1', agent: 'refunds', ...conversation },
      from: 'Heed <heed@example.com>',
    });

  it('names the requester and the agent, in the text and the HTML (escaped)', () => {
    const sent = mail({ ownerId: 'ada' });
    expect(sent.text).toContain('Requested by ada, through the agent refunds.');
    expect(sent.html).toContain('Requested by <b>ada</b>, through the agent <b>refunds</b>.');
    const hostile = mail({ ownerId: '<img src=x>' });
    expect(hostile.html).toContain('Requested by <b>&lt;img src=x&gt;</b>');
    expect(hostile.html).not.toContain('<img');
  });

  it('says so when nobody signed in asked, or where a channel conversation lives', () => {
    expect(mail({ ownerId: null }).text).toContain('Requested through the agent refunds, by someone not signed in.');
    expect(mail({ ownerId: null, channel: 'slack:T1:C1:1700000000.000001' }).text).toContain(
      'Requested through the agent refunds, in a Slack thread.',
    );
  });
});
