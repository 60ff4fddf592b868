// @vitest-environment jsdom
/**
 * The real `useChat` hook of `@ai-sdk/react`, rendered with React DOM (jsdom), over real HTTP against
 * a Heed server on a loopback port: one approval and one question end to end, a tampered copy of the
 * call in the browser, a wrong answer, and a reload that restores the pause from the messages endpoint.
 */
import { randomUUID } from 'node:crypto';
import type { UIMessage } from '@ai-sdk/react';
import { act, createElement as h } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serve, type RunningServer } from '../../src/cli/serve.js';
import type { AgentConfig } from '../../src/config.js';
import { memoryStore } from '../../src/store/memory/memory-store.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { tool } from '../../src/tool.js';
import { ChatApp, sdk6, sdk7, type Chat, type ChatSdk } from './chat-app.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const refunds: Array<{ orderId: number; amount: number }> = [];
/** How many jokes the model has told: each reply to a joke request is a new one. */
let jokes = 0;

const model = scriptedModel(({ messages }) => {
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const result = last.content.find((part) => part.type === 'tool-result');
    if (result?.type !== 'tool-result') return { text: 'Done.' };
    if (result.toolName === 'ask')
      return { text: `Booked. ${result.output.type === 'text' ? result.output.value : ''}` };
    return { text: result.output.type === 'json' ? 'Refunded.' : 'Not refunded.' };
  }
  const said =
    last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
  if (said.includes('joke')) return { text: `Joke #${++jokes}` };
  if (said.includes('refund')) return { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] };
  if (said.includes('trip')) {
    return {
      toolCalls: [
        {
          toolName: 'ask',
          input: {
            questions: [
              {
                id: 'seat',
                header: 'Seat',
                prompt: 'Window or aisle?',
                options: [
                  { value: 'window', label: 'Window' },
                  { value: 'aisle', label: 'Aisle' },
                ],
                defaults: ['aisle'],
              },
              {
                id: 'nights',
                header: 'Nights',
                prompt: 'How many nights?',
                input: { type: 'number', min: 1, max: 14, required: true },
              },
            ],
          },
        },
      ],
    };
  }
  return { text: 'Hello.' };
});

const helpdesk: AgentConfig = {
  name: 'helpdesk',
  model,
  ask: true,
  tools: {
    issue_refund: tool({
      description: 'Refund an order.',
      inputSchema: z.object({ orderId: z.number().int(), amount: z.number().max(10_000) }),
      needsApproval: true,
      approvalTitle: (input: { orderId: number; amount: number }) =>
        `Refund $${input.amount} on order ${input.orderId}?`,
      execute: async (input: { orderId: number; amount: number }) => {
        refunds.push(input);
        return { refunded: input.amount };
      },
    }),
  },
};

let server: RunningServer;
let api: string;
let container: HTMLElement;
let root: Root | undefined;

beforeAll(async () => {
  // The real server; without the web console, whose files this jsdom environment cannot locate.
  server = await serve({
    config: {
      agents: [helpdesk],
      store: memoryStore(),
      sweepIntervalMs: 0,
      auth: { tokens: { ada: { userId: 'ada' }, bob: { userId: 'bob' } } },
    },
    port: 0,
    console: false,
    log: () => undefined,
  });
  api = `${server.url}/api/ai-sdk/chat/helpdesk`;
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await act(async () => root?.unmount());
  root = undefined;
  container?.remove();
  refunds.length = 0;
});

type MountProps = {
  id: string;
  token?: string;
  messages?: UIMessage[];
  requests?: string[];
  decisions?: Array<{ requests: number; send: boolean }>;
};

/** Renders the chat page, built with `sdk`; returns a handle on the hook it rendered. */
async function mountWith(sdk: ChatSdk, props: MountProps) {
  const ref: { chat?: Chat } = {};
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () => root!.render(h(ChatApp, { api, sdk, ...props, onChat: (chat) => (ref.chat = chat) })));
  return ref as { chat: Chat };
}

async function unmount() {
  await act(async () => root?.unmount());
  root = undefined;
  container.remove();
}

/** Waits (letting React and the network run) until `check` holds. */
async function until(what: string, check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}. The page shows: ${container.innerHTML}`);
    await act(() => new Promise((resolve) => setTimeout(resolve, 10)));
  }
}

const text = () => container.textContent ?? '';
const status = () => container.querySelector('[data-testid=status]')?.textContent;

function button(label: string, within: ParentNode = container): HTMLButtonElement {
  const found = Array.from(within.querySelectorAll('button')).find((candidate) => candidate.textContent === label);
  if (!found) throw new Error(`No button "${label}" in: ${container.innerHTML}`);
  return found;
}

async function click(target: HTMLElement) {
  await act(async () => target.click());
}

async function say(message: string) {
  const form = container.querySelector('form[aria-label=composer]')!;
  (form.querySelector('input[name=text]') as HTMLInputElement).value = message;
  await click(button('Send', form));
}

async function answer(values: Record<string, string>) {
  const form = container.querySelector('form[aria-label=question]')!;
  for (const [name, value] of Object.entries(values))
    (form.querySelector(`input[name=${name}]`) as HTMLInputElement).value = value;
  await click(button('Answer', form));
}

const newChatId = () => `chat-${randomUUID()}`;

/** Heed's own JSON API, to look at what was stored. */
async function stored(path: string) {
  const response = await fetch(`${server.url}/api${path}`, { headers: { authorization: 'Bearer ada' } });
  return response.json();
}

describe.each([sdk7, sdk6])('useChat of $name against Heed', (sdk) => {
  const mount = (props: MountProps) => mountWith(sdk, props);

  it('approves a call with addToolApprovalResponse: the tool runs once, with the stored input, not the tampered copy', async () => {
    const id = newChatId();
    const requests: string[] = [];
    const decisions: Array<{ requests: number; send: boolean }> = [];
    const { chat } = await mount({ id, token: 'ada', requests, decisions });
    await say('please refund order 42');
    await until('the approval card', () => container.querySelector('[role=dialog]') !== null);
    expect(text()).toContain('Refund $5 on order 42?');
    expect(text()).toContain('Refund an order.');

    // A hostile page rewrites its copy of the call before approving.
    await act(async () =>
      chat.setMessages((messages) =>
        messages.map((message) => ({
          ...message,
          parts: message.parts.map((part) =>
            part.type === 'tool-issue_refund' ? { ...part, input: { orderId: 42, amount: 5000 } } : part,
          ),
        })),
      ),
    );
    expect(container.querySelector('[role=dialog] code')?.textContent).toContain('5000');

    await click(button('Approve'));
    await until('the reply after the tool ran', () => text().includes('Refunded.'));
    expect(refunds).toEqual([{ orderId: 42, amount: 5 }]);
    expect(text()).toContain('{"refunded":5}');
    await until('the chat to be ready', () => status() === 'ready');

    // One request for the message, one for the approval (carrying the tampered copy, which was ignored);
    // the finished reply is not sent back again: once it is in, the chat asks whether to send again.
    await until('the decision after the reply', () => decisions.some((decision) => decision.requests === 2));
    expect(requests).toHaveLength(2);
    expect(requests[1]).toContain('"amount":5000');
    expect(requests[1]).toContain('"state":"approval-responded"');
    const conversation = await stored(`/conversations/${id}`);
    expect(conversation.conversation).toMatchObject({ id, agent: 'helpdesk', ownerId: 'ada', status: 'idle' });
    expect(conversation.messages[1].metadata.actions[0]).toMatchObject({
      kind: 'approval',
      status: 'resolved',
      resolution: { decision: 'allow' },
      resolvedBy: 'ada',
    });
  });

  it('denies a call: nothing runs and the part shows the refusal', async () => {
    await mount({ id: newChatId() });
    await say('refund me');
    await until('the approval card', () => container.querySelector('[role=dialog]') !== null);
    await click(button('Deny'));
    await until('the reply', () => text().includes('Not refunded.'));
    expect(refunds).toEqual([]);
    expect(text()).toContain('Denied');
  });

  it('answers a question with addToolOutput: a wrong answer gets the 400 sentence, a right one continues and the model reads the summary', async () => {
    const id = newChatId();
    await mount({ id, token: 'ada' });
    await say('plan a trip');
    await until('the question card', () => container.querySelector('form[aria-label=question]') !== null);
    expect(text()).toContain('Window or aisle? (Window / Aisle)');
    expect(text()).toContain('How many nights?');

    await answer({ seat: 'Window', nights: '99' });
    await until('the error', () => container.querySelector('[role=alert]') !== null);
    const sentence = container.querySelector('[role=alert]')!.textContent!;
    expect(sentence).toMatch(/Nights/);
    expect(sentence).toMatch(/14/);
    expect(sentence).not.toContain('{');
    const pending = await stored(`/conversations/${id}/actions`);
    expect(pending.actions[0]).toMatchObject({ kind: 'question', status: 'pending' });

    const callsBefore = model.callCount;
    await answer({ seat: 'Window', nights: '3' });
    await until('the reply', () => text().includes('Booked.'));
    expect(text()).toContain('Window or aisle? → Window');
    expect(text()).toContain('How many nights? → 3');
    // The model was called once more, and read the answers by label.
    expect(model.callCount).toBe(callsBefore + 1);
    const toolMessage = model.calls.at(-1)!.messages.at(-1)!;
    expect(JSON.stringify(toolMessage)).toContain('Window or aisle? → Window');
    // The part now shows the answers as stored (canonical values), not what the page typed.
    expect(text()).toContain('"answers":{"seat":["window"],"nights":["3"]}');
  });

  it('dismissing a question ends the turn without the model, and the chat does not send the reply back', async () => {
    const requests: string[] = [];
    const decisions: Array<{ requests: number; send: boolean }> = [];
    await mount({ id: newChatId(), requests, decisions });
    await say('plan a trip');
    await until('the question card', () => container.querySelector('form[aria-label=question]') !== null);
    const callsBefore = model.callCount;
    await click(button('Dismiss'));
    await until('the dismissal', () => text().includes('Dismissed by the user.'));
    await until('the chat to be ready', () => status() === 'ready');
    // Once the dismissal is in, the chat asks whether to send again; it sends nothing more.
    await until('the decision after the dismissal', () => decisions.some((decision) => decision.requests === 2));
    expect(requests).toHaveLength(2);
    expect(model.callCount).toBe(callsBefore);
    expect(container.querySelector('[role=alert]')).toBeNull();
  });

  it('after a reload, useChat initialised from the messages endpoint shows the open request and can answer it', async () => {
    const id = newChatId();
    await mount({ id, token: 'ada' });
    await say('refund order 42');
    await until('the approval card', () => container.querySelector('[role=dialog]') !== null);
    await unmount();

    const reload = async () => {
      const response = await fetch(`${api}/${id}/messages`, { headers: { authorization: 'Bearer ada' } });
      expect(response.status).toBe(200);
      return ((await response.json()) as { messages: UIMessage[] }).messages;
    };
    await mount({ id, token: 'ada', messages: await reload() });
    expect(container.querySelector('[role=dialog]')?.textContent).toContain('Refund $5 on order 42?');
    await click(button('Approve'));
    await until('the reply', () => text().includes('Refunded.'));
    expect(refunds).toEqual([{ orderId: 42, amount: 5 }]);

    // The same for a question, in the same conversation.
    await say('now plan a trip');
    await until('the question card', () => container.querySelector('form[aria-label=question]') !== null);
    await unmount();
    await mount({ id, token: 'ada', messages: await reload() });
    expect(text()).toContain('Refunded.');
    expect(text()).toContain('How many nights?');
    await answer({ nights: '2' });
    await until('the reply', () => text().includes('Booked.'));
    expect(text()).toContain('Window or aisle? → Aisle');

    // Someone else sees no such conversation.
    const other = await fetch(`${api}/${id}/messages`, { headers: { authorization: 'Bearer bob' } });
    expect(await other.json()).toEqual({ messages: [] });
  });

  it('regenerate() runs the last turn again: the new reply replaces the old one in the chat, the model never reads the old one, the record keeps both', async () => {
    const id = newChatId();
    const page = await mount({ id, token: 'ada' });
    await say('tell me a joke');
    await until('the first joke', () => /Joke #\d+/.test(text()));
    const first = /Joke #(\d+)/.exec(text())![1];
    await until('the chat to be ready', () => status() === 'ready');

    await act(async () => page.chat.regenerate());
    await until('another joke', () => /Joke #\d+/.test(text()) && !text().includes(`Joke #${first}`));
    await until('the chat to be ready', () => status() === 'ready');
    expect(container.querySelector('[role=alert]')).toBeNull();
    const second = /Joke #(\d+)/.exec(text())![1];
    expect(Number(second)).toBe(Number(first) + 1);
    expect(page.chat.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    // The model was asked the question alone, as the first time: the replaced reply is not in its prompt.
    const prompt = JSON.stringify(model.calls.at(-1)!.messages);
    expect(prompt).toContain('tell me a joke');
    expect(prompt).not.toContain(`Joke #${first}`);

    // The record keeps both replies; the repeated message says what it replaced, and the log says why the turn ran.
    const conversation = await stored(`/conversations/${id}`);
    const record = conversation.messages.map(
      (message: { role: string; parts: Array<{ text?: string }> }) => `${message.role}: ${message.parts[0]?.text}`,
    );
    expect(record).toEqual([
      'user: tell me a joke',
      `assistant: Joke #${first}`,
      'user: tell me a joke',
      `assistant: Joke #${second}`,
    ]);
    expect(conversation.messages[2].metadata.regenerates).toEqual({ messageId: conversation.messages[0].id, count: 2 });
    const events = await stored(`/conversations/${id}/events`);
    expect(
      events.events
        .filter((event: { type: string }) => event.type === 'turn.started')
        .map((event: { data: { trigger: string } }) => event.data.trigger),
    ).toEqual(['message', 'regenerate']);

    // After a reload the chat shows the new reply only, and goes on from it.
    await unmount();
    const reloaded = (
      (await (await fetch(`${api}/${id}/messages`, { headers: { authorization: 'Bearer ada' } })).json()) as {
        messages: UIMessage[];
      }
    ).messages;
    expect(reloaded.map((message) => message.role)).toEqual(['user', 'assistant']);
    await mount({ id, token: 'ada', messages: reloaded });
    expect(text()).toContain(`Joke #${second}`);
    expect(text()).not.toContain(`Joke #${first}`);
    await say('one more joke');
    await until('the next joke', () => text().includes(`Joke #${Number(second) + 1}`));
    expect(JSON.stringify(model.calls.at(-1)!.messages)).not.toContain(`Joke #${first}`);
  });

  it('regenerate() while a request waits is refused with the sentence, and nothing changes', async () => {
    const id = newChatId();
    const { chat } = await mount({ id, token: 'ada' });
    await say('refund order 42');
    await until('the approval card', () => container.querySelector('[role=dialog]') !== null);
    await act(async () => chat.regenerate().catch(() => undefined));
    await until('the error', () => container.querySelector('[role=alert]') !== null);
    expect(container.querySelector('[role=alert]')!.textContent).toBe(
      'This conversation is waiting for an answer; answer or cancel it before making the reply again.',
    );
    const conversation = await stored(`/conversations/${id}`);
    expect(conversation.messages).toHaveLength(2);
    expect(conversation.pendingActions).toHaveLength(1);
  });
});
