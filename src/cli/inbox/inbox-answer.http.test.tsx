import { render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { z } from 'zod';
import type { AgentConfig } from '../../config.js';
import { tool } from '../../tool.js';
import { scriptedModel } from '../../testing/scripted-model.js';
import { startServer, supportAgent, type TestServer } from '../../../test/http-fixtures.js';
import { InboxApp } from './app.js';
import type { InboxSystem } from './system.js';

// Answering each kind with the keyboard alone, against a real server on loopback.
const KEY = { up: '\u001B[A', down: '\u001B[B', left: '\u001B[D', enter: '\r', escape: '\u001B', backspace: '\u007F' };
let server: TestServer;
let time = Date.parse('2030-01-01T00:00:00Z');
let mounted: Array<{ unmount(): void }> = [];

/** `code` asks one text question whose pattern only the server checks; `form` asks a multi-select, a yes/no and an email. */
const forms: AgentConfig = {
  name: 'forms',
  ask: true,
  model: scriptedModel(({ messages }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') return { text: 'Thanks.' };
    const text =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    const questions = text.includes('code')
      ? [{ id: 'code', header: 'Code', prompt: 'Which code?', input: { type: 'text', pattern: '(a|b)*' } }]
      : [
          {
            id: 'toppings',
            header: 'Toppings',
            prompt: 'Which toppings?',
            multiple: true,
            options: [
              { value: 'cheese', label: 'Cheese', hotkey: 'c' },
              { value: 'olives', label: 'Olives', hotkey: 'o' },
              { value: 'basil', label: 'Basil' },
            ],
            defaults: ['cheese'],
          },
          { id: 'spicy', header: 'Spicy', prompt: 'Spicy?', input: { type: 'boolean' }, defaults: ['false'] },
          { id: 'email', header: 'Email', prompt: 'Where do we write?', input: { type: 'email', required: true } },
        ];
    return { toolCalls: [{ toolName: 'ask', input: { questions } }] };
  }),
};

/** `payout` needs two allows from ada and bob before it runs. */
const quorum: AgentConfig = {
  name: 'quorum',
  model: scriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? { text: 'Paid.' }
      : { toolCalls: [{ toolName: 'payout', input: { amount: 900 } }] },
  ),
  tools: {
    payout: tool({
      description: 'Pay out money.',
      inputSchema: z.object({ amount: z.number() }),
      needsApproval: true,
      approval: { approvers: ['ada', 'bob'], required: 2 },
      execute: async ({ amount }) => ({ paid: amount }),
    }),
  },
};

beforeAll(async () => {
  server = await startServer({ agents: [supportAgent(new Map()), forms, quorum], now: () => new Date(time) });
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  for (const app of mounted) app.unmount();
  mounted = [];
  const inbox = await server.api('GET', '/api/inbox?limit=200', { token: 'ada' });
  for (const action of inbox.body.actions)
    await server.api('POST', `/api/conversations/${action.conversationId}/cancel`, { token: 'ada' });
});

async function until(read: () => string | undefined, wanted: string | RegExp, timeoutMs = 5000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const frame = read() ?? '';
    if (typeof wanted === 'string' ? frame.includes(wanted) : wanted.test(frame)) return frame;
    if (Date.now() - started > timeoutMs)
      throw new Error(`Timed out waiting for ${String(wanted)}; the screen shows:\n${frame}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function pause(content: string, agent = 'support'): Promise<{ conversationId: string; actionId: string }> {
  const conversation = await server.api('POST', '/api/conversations', { body: { agent }, token: 'ada' });
  const sent = await server.api('POST', `/api/conversations/${conversation.body.id}/messages`, {
    body: { content },
    token: 'ada',
  });
  expect(sent.body.status).toBe('requires_action');
  return { conversationId: conversation.body.id, actionId: sent.body.pendingActions[0].id };
}

async function stored(target: { conversationId: string; actionId: string }) {
  const actions = await server.api('GET', `/api/conversations/${target.conversationId}/actions`, { token: 'ada' });
  return actions.body.actions.find((action: { id: string }) => action.id === target.actionId);
}

/** Mounts the inbox, waits for the request and opens it. */
async function open(wanted: string, system: Partial<InboxSystem> = {}) {
  const opened: string[] = [];
  const app = render(
    <InboxApp
      client={createClient({ baseUrl: server.url, token: 'ada' })}
      server={server.url}
      anonymous={false}
      system={{ openUrl: async (url) => (opened.push(url), false), ...system }}
      color={false}
      intervalMs={150}
      clock={() => time}
    />,
  );
  mounted.push(app);
  await until(app.lastFrame, wanted);
  app.stdin.write(KEY.enter);
  await until(app.lastFrame, ' · asked ');
  // The view listens for keys once it has drawn (Ink subscribes in an effect).
  // fixed wait kept: nothing outside Ink shows that subscription; a key written before it would be lost
  await new Promise((resolve) => setTimeout(resolve, 50));
  const press = async (keys: string, next: string | RegExp) => {
    app.stdin.write(keys);
    return until(app.lastFrame, next);
  };
  return { app, opened, press };
}

describe('heed inbox: approvals', () => {
  it('shows the arguments as JSON; a allows', async () => {
    const target = await pause('refund please');
    const { press, app } = await open('Run issue_refund?');
    const frame = await until(app.lastFrame, 'Arguments:');
    expect(frame).toContain('  "orderId": 42,');
    expect(frame).toContain('  "amount": 5');
    await press('a', '✓ you: allowed');
    expect((await stored(target)).resolution).toEqual({ type: 'approval', decision: 'allow' });
  });

  it('an approval decided by votes shows how far it has got; a is one vote and leaves it pending', async () => {
    const target = await pause('pay out', 'quorum');
    const { press, app } = await open('Run payout?');
    expect(await until(app.lastFrame, '0 of 2 approvals')).toContain('0 of 2 approvals · waiting on ada, bob');
    expect(await press('a', '✓ you voted')).toContain('✓ you voted; 1 of 2 approvals: ada allowed · waiting on bob');
    const vote = await stored(target);
    expect(vote.status).toBe('pending');
    expect(vote.votes).toMatchObject([{ by: 'ada', decision: 'allow' }]);
  });

  it('d denies with an optional comment', async () => {
    const target = await pause('refund please');
    const { press } = await open('Run issue_refund?');
    await press('d', 'Deny — comment (optional):');
    await press('too much', 'too much▏');
    await press(KEY.enter, '✓ you: denied ("too much")');
    expect((await stored(target)).resolution).toEqual({ type: 'approval', decision: 'deny', comment: 'too much' });
  });

  it('e edits the arguments inline, checked against the schema; r remembers', async () => {
    const target = await pause('refund please');
    const { press } = await open('Run issue_refund?');
    await press('e', '› orderId');
    await press('j', '› amount');
    await press(KEY.enter, '5▏');
    const refused = await press('900\r', '✗ amount');
    expect(refused).toMatch(/amount\s+900\s+✗ amount must be at most 500/);
    await press(KEY.enter, '900▏');
    await press(`${KEY.backspace}${KEY.backspace}`, /amount +9▏/);
    await press('\r', /amount\s+9\s*\n/);
    await press(KEY.escape, 'a allow · d deny');
    await press('r', "[x] Don't ask again");
    await press('a', '✓ you: allowed with changes');
    expect((await stored(target)).resolution).toEqual({
      type: 'approval',
      decision: 'allow',
      approvedArgs: { orderId: 42, amount: 9 },
      remember: true,
    });
  });

  it('e edits in $EDITOR when set; text that is not JSON is kept for the next try', async () => {
    const target = await pause('refund please');
    const seen: string[] = [];
    const replies = ['{ "orderId": 42, "amount": ', '{ "orderId": 42, "amount": 7 }'];
    const { press } = await open('Run issue_refund?', {
      editText: async (text) => {
        seen.push(text);
        return { ok: true, text: replies.shift()! };
      },
    });
    await press('e', 'The edited text is not JSON');
    await press('e', '"amount": 7');
    expect(seen[0]).toContain('"amount": 5');
    expect(seen[1]).toBe('{ "orderId": 42, "amount": ');
    await press('a', '✓ you: allowed with changes');
    expect((await stored(target)).resolution.approvedArgs).toEqual({ orderId: 42, amount: 7 });
  });

  it('a 409 shows who answered first and what; nothing is sent', async () => {
    const target = await pause('refund please');
    const { press, app } = await open('Run issue_refund?');
    await until(app.lastFrame, 'a allow');
    // Answered in the web console while the terminal shows it; the poll has not seen it yet or just has.
    await server.api('POST', `/api/conversations/${target.conversationId}/actions/${target.actionId}`, {
      body: { resolution: { type: 'approval', decision: 'deny' } },
      token: 'ada',
    });
    const frame = await press('a', 'ada answered first: denied.');
    expect(frame).not.toContain('a allow');
    expect((await stored(target)).resolution).toEqual({ type: 'approval', decision: 'deny' });
  });
});

describe('heed inbox: questions', () => {
  it('one at a time, defaults pre-picked; number keys pick, Enter moves on, typed answers are checked', async () => {
    const target = await pause('ask me');
    const { press, app } = await open('Which size?');
    let frame = await until(app.lastFrame, 'Question 1 of 2 — Size');
    expect(frame).toMatch(/› 1 +\(•\) Small/);
    frame = await press('2', /\(•\) Large/);
    expect(frame).toMatch(/1 +\( \) Small/);
    frame = await press(KEY.enter, 'Question 2 of 2 — Quantity');
    expect(frame).toContain('› 1▏');
    await press('12', '12▏');
    await press(KEY.enter, '✗');
    await press(KEY.backspace, /› 1▏/);
    await press(KEY.backspace, /› ▏/);
    await press('3', '› 3▏');
    await press(KEY.enter, '✓ you: answered (Size: Large; Quantity: 3)');
    expect((await stored(target)).resolution).toEqual({ type: 'question', answers: { size: ['l'], qty: ['3'] } });
  });

  it('hotkeys and Space toggle a multi-select; y/n answers a yes/no; ← goes back; typing fills an email', async () => {
    const target = await pause('form', 'forms');
    const { press } = await open('Which toppings?');
    await press('o', /› o +\[x\] Olives/);
    await press(KEY.up, /› c +\[x\] Cheese/);
    await press(' ', /› c +\[ \] Cheese/);
    await press('j', /› o +\[x\] Olives/);
    await press('3', /› 3 +\[x\] Basil/);
    await press(KEY.enter, 'Question 2 of 3 — Spicy');
    await press('y', /\(•\) Yes/);
    await press(KEY.left, 'Question 1 of 3');
    await press(KEY.enter, 'Question 2 of 3');
    await press(KEY.enter, 'Question 3 of 3 — Email');
    await press(KEY.enter, 'needs an answer');
    await press('ada@example.com', 'ada@example.com▏');
    await press(KEY.enter, '✓ you: answered');
    expect((await stored(target)).resolution).toEqual({
      type: 'question',
      answers: { toppings: ['olives', 'basil'], spicy: ['true'], email: ['ada@example.com'] },
    });
  });

  it("the server's per-field error appears beside the field, and what was typed stays", async () => {
    const target = await pause('code', 'forms');
    const { press } = await open('Which code?');
    await press('abc', 'abc▏');
    const frame = await press(KEY.enter, /✗ .*Code/);
    expect(frame).toContain('abc▏');
    await press(KEY.backspace, /› ab▏/);
    await press(KEY.enter, '✓ you: answered (Code: ab)');
    expect((await stored(target)).resolution).toEqual({ type: 'question', answers: { code: ['ab'] } });
  });

  it('s skips; x dismisses (Esc first leaves a typed field)', async () => {
    const skipped = await pause('ask me');
    const first = await open('Which size?');
    await first.press('s', '✓ you: skipped');
    expect((await stored(skipped)).resolution).toMatchObject({ type: 'question', skip: true });
    first.app.unmount();

    const dismissed = await pause('code', 'forms');
    const second = await open('Which code?');
    await second.press('x', 'x▏');
    await second.press(KEY.backspace, '› ▏');
    await second.press(KEY.escape, 's skip · x dismiss');
    await second.press('x', '✓ you: dismissed');
    expect((await stored(dismissed)).resolution).toEqual({ type: 'question', dismiss: true });
  });

  it('a 410 says it lapsed', async () => {
    await pause('ask me');
    const { press, app } = await open('Which size?');
    await until(app.lastFrame, 'Question 1 of 2');
    time += 3 * 24 * 60 * 60 * 1000;
    await press('s', 'It lapsed before your answer arrived');
  });
});

describe('heed inbox: URL requests and client tools', () => {
  it('shows the URL and its host; o opens it (or says there is no opener); a accepts', async () => {
    const target = await pause('link please');
    const { press, app, opened } = await open('Connect your account');
    const frame = await until(app.lastFrame, 'Host: example.com');
    expect(frame).toContain('https://example.com/connect');
    await press('o', 'No browser to open here: copy the address above.');
    expect(opened).toEqual(['https://example.com/connect']);
    await press('a', '✓ you: opened');
    expect((await stored(target)).resolution).toEqual({ type: 'url', decision: 'accept' });
  });

  it('d declines', async () => {
    const target = await pause('link please');
    const { press } = await open('Connect your account');
    await press('d', '✓ you: declined');
    expect((await stored(target)).resolution).toEqual({ type: 'url', decision: 'decline' });
  });

  it('a client tool is shown, not answerable here', async () => {
    const target = await pause('page please');
    const { press, app } = await open('get_selection (answered by the page)');
    const frame = await until(app.lastFrame, 'there is nothing to answer here');
    expect(frame).toContain('"purpose": "test"');
    await press('a', 'Esc back');
    await press(KEY.escape, 'Heed inbox');
    expect((await stored(target)).status).toBe('pending');
  });
});
