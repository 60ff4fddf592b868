import { render } from 'ink-testing-library';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { genericRequestBlocks } from '../channels/slack/blocks.js';
import { GenericView } from '../cli/inbox/generic-view.js';
import { genericMailBody } from '../notify/email.js';
import { actionView } from '../protocol/views.js';
import { GenericCard } from '../react/components/generic-card.js';
import type { ResolutionInput } from '../protocol/resolution-input.js';
import type { ActionRecord } from '../types.js';
import { byKind, type ActionView, type ByKind } from './index.js';

/*
 * What shows a kind with nothing of its own in a place (a card, a mail body, Slack blocks, an inbox view):
 * its presentation's title, summary and choices. Every kind Heed ships has its own in each place, so the
 * fallbacks are shown here with a URL request, whose presentation offers choices.
 */

const record: ActionRecord = {
  id: 'act_1',
  conversationId: 'conv_1',
  messageId: 'msg_1',
  toolCallId: 'call_1',
  toolName: 'connect',
  kind: 'url',
  origin: 'ctx',
  journalIndex: 0,
  status: 'pending',
  request: { kind: 'url', url: 'https://calendar.example/connect', title: 'Connect your calendar' },
  createdAt: '2030-01-01T00:00:00.000Z',
  expiresAt: '2030-01-02T00:00:00.000Z',
  onTimeout: 'deny',
  resolution: null,
  resolvedBy: null,
  channel: null,
  resolvedAt: null,
  defaulted: null,
};
const view: ActionView = actionView.parse({
  ...record.request,
  id: record.id,
  conversationId: 'conv_1',
  messageId: 'msg_1',
  toolCallId: 'call_1',
  toolName: 'connect',
  status: 'pending',
  createdAt: record.createdAt,
});

describe('a kind shown where nothing of its own does', () => {
  it('byKind calls the table for a kind it has, and the fallback for one it leaves out', () => {
    const table: ByKind<string, [suffix: string]> = { approval: (action, suffix) => `approval ${action.title}${suffix}` };
    expect(byKind(table, (action, suffix) => `fallback ${action.kind}${suffix}`, view, '!')).toBe('fallback url!');
  });

  it('the generic card shows its title and summary and a button per choice, the first choice as the primary one', () => {
    const html = renderToString(<GenericCard action={view} onSubmit={async () => ({ ok: true }) as never} />);
    expect(html).toContain('Connect your calendar');
    expect(html).toContain('Please open: Connect your calendar');
    const buttons = [...html.matchAll(/<button[^>]*class="([^"]*)"[^>]*>([^<]*)<\/button>/g)].map(
      ([, className, label]) => `${label}${className.includes('heed-primary') ? ' (primary)' : ''}`,
    );
    expect(buttons).toEqual(['Done (primary)', 'Decline', 'Not now']);
  });

  it("a mail's generic body says what is asked, by which agent, and links to the answer page", () => {
    const out = { html: [] as string[], text: [] as string[] };
    genericMailBody(view, { page: 'https://heed.example/answer/t0k3n' }, 'scheduler', out);
    expect(out.text.join('\n')).toBe(
      ['Connect your calendar', 'Please open: Connect your calendar', 'Asked by the agent scheduler.', '', 'Answer: https://heed.example/answer/t0k3n'].join('\n'),
    );
    expect(out.html.join('')).toContain('href="https://heed.example/answer/t0k3n"');
  });

  it('Slack shows what is asked and says to answer in the app, with its deadline', () => {
    const text = JSON.stringify(genericRequestBlocks(record));
    expect(text).toContain('*Connect your calendar*\\nPlease open: Connect your calendar');
    expect(text).toContain('This request cannot be answered in Slack');
    expect(text).toContain('Lapses <!date^');
    expect(text).not.toContain('"type":"actions"');
  });

  it('the terminal inbox offers each choice under a number key, and the key sends that answer', async () => {
    const sent: ResolutionInput[] = [];
    const answered: ActionView[] = [];
    const app = render(
      <GenericView
        action={view}
        send={async (resolution) => {
          sent.push(resolution);
          return { ...view, status: 'resolved', resolution: { type: 'url', decision: 'accept' } } as ActionView;
        }}
        system={{ openUrl: async () => false }}
        rows={24}
        columns={100}
        now={Date.parse('2030-01-01T00:10:00Z')}
        onAnswered={(stored) => answered.push(stored)}
        onSettled={() => {}}
        onBack={() => {}}
      />,
    );
    try {
      const frame = app.lastFrame() ?? '';
      expect(frame).toContain('Please open: Connect your calendar');
      expect(frame).toContain('1 Done · 2 Decline · 3 Not now · Esc back');
      app.stdin.write('4');
      app.stdin.write('1');
      for (let waited = 0; answered.length === 0 && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(sent).toEqual([{ type: 'url', decision: 'accept' }]);
      expect(answered.map((stored) => stored.status)).toEqual(['resolved']);
    } finally {
      app.unmount();
    }
  });
});
