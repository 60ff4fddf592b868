import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSse, startServer, supportAgent, type TestServer } from '../../test/http-fixtures.js';
import type { AgentConfig } from '../config.js';
import { scriptedModel } from '../testing/scripted-model.js';

/**
 * `regenerate()` against the AI SDK chat endpoint, at the protocol level (the hook itself: test/use-chat):
 * what useChat posts, what is recorded, what the model reads, and the requests that must change nothing.
 */
let server: TestServer;
let counter = 0;
const newId = () => `regen-${Date.now().toString(36)}-${counter++}`;

let replies = 0;
const greeter = scriptedModel(({ messages }) => {
  const last = messages.at(-1);
  const tool = last?.role === 'tool' ? last.content.find((part) => part.type === 'tool-result') : undefined;
  return {
    text: `Reply ${++replies}${tool?.type === 'tool-result' && tool.output.type === 'text' ? ` after: ${tool.output.value}` : ''}`,
  };
});
const intake: AgentConfig = {
  name: 'onboarding',
  model: greeter,
  intake: {
    questions: [
      {
        id: 'team',
        prompt: 'Which team are you on?',
        options: [
          { value: 'web', label: 'Web' },
          { value: 'data', label: 'Data' },
        ],
        defaults: ['web'],
      },
    ],
  },
};

beforeAll(async () => {
  server = await startServer({ agents: [supportAgent(new Map()), intake] });
});
afterAll(async () => {
  await server.close();
});

type Sent = { id: string; role: 'user' | 'assistant'; parts: Array<Record<string, unknown>> };
const user = (text: string): Sent => ({ id: `u-${counter++}`, role: 'user', parts: [{ type: 'text', text }] });

/** Posts what `DefaultChatTransport` posts; returns the status, the error or the streamed chunks. */
async function post(
  agent: string,
  id: string,
  messages: Sent[],
  trigger: 'submit-message' | 'regenerate-message',
  token = 'ada',
) {
  const response = await fetch(`${server.url}/api/ai-sdk/chat/${agent}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ id, messages, trigger }),
  });
  if (!response.ok)
    return {
      status: response.status,
      error: (await response.json()).error,
      chunks: [] as Array<Record<string, unknown>>,
    };
  const data = parseSse(await response.text()).map((event) => event.data);
  return {
    status: response.status,
    error: undefined,
    chunks: data.slice(0, -1).map((item) => JSON.parse(item) as Record<string, unknown>),
  };
}

const streamedText = (chunks: Array<Record<string, unknown>>) =>
  chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta as string] : [])).join('');
const record = async (id: string) => (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body;

describe('regenerate on the AI SDK chat endpoint', () => {
  it('runs the turn of the last message again; a stale, foreign or malformed request is refused and records nothing', async () => {
    const id = newId();
    const asked = user('hello');
    await post('support', id, [asked], 'submit-message');
    const before = (await record(id)).messages.length;

    // A page whose last message is not the conversation's (another tab sent one since) is refused.
    const stale = await post('support', id, [user('something else')], 'regenerate-message');
    expect(stale).toMatchObject({
      status: 400,
      error: { code: 'invalid_request', details: { field: 'body.messages' } },
    });
    expect(stale.error.message).toBe(
      "Only the reply to the conversation's last message can be made again, and this chat's last message is another; reload it, or branch the conversation to go back further.",
    );
    // Someone else, a chat that does not exist, and a body that does not end on the user's message.
    expect((await post('support', id, [asked], 'regenerate-message', 'bob')).status).toBe(404);
    expect((await post('support', newId(), [asked], 'regenerate-message')).error).toMatchObject({ code: 'not_found' });
    expect(
      (
        await post(
          'support',
          id,
          [asked, { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Hello.' }] }],
          'regenerate-message',
        )
      ).error,
    ).toMatchObject({
      code: 'invalid_request',
    });
    expect((await record(id)).messages).toHaveLength(before);

    const again = await post('support', id, [asked], 'regenerate-message');
    expect(again.status).toBe(200);
    expect(again.chunks[0]).toMatchObject({ type: 'start' });
    expect(streamedText(again.chunks)).toBe('Hello.');
    expect(again.chunks.at(-1)).toMatchObject({ type: 'finish' });
    const after = await record(id);
    expect(after.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(after.messages[2].metadata).toEqual({ regenerates: { messageId: after.messages[0].id, count: 2 } });
  });

  it('a turn that ran a tool is run again as a new call: the old call stays answered in the record, the new one asks again', async () => {
    const id = newId();
    const asked = user('refund order 42');
    const first = await post('support', id, [asked], 'submit-message');
    const approval = first.chunks.find((chunk) => chunk.type === 'tool-approval-request')!;
    const waiting = (await record(id)).pendingActions[0];
    await server.api('POST', `/api/conversations/${id}/actions/${waiting.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'deny' } },
    });

    const again = await post('support', id, [asked], 'regenerate-message');
    const request = again.chunks.find((chunk) => chunk.type === 'tool-approval-request')!;
    expect(request.toolCallId).not.toBe(approval.toolCallId);
    const actions = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions;
    expect(actions.map((action: { status: string }) => action.status)).toEqual(['pending', 'resolved']);
    // The chat a reload shows holds the new call only.
    const reloaded = (await server.api('GET', `/api/ai-sdk/chat/support/${id}/messages`, { token: 'ada' })).body
      .messages;
    expect(reloaded.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(reloaded)).not.toContain(approval.toolCallId as string);
  });

  it("keeps the intake's answers: not asked again, and the model reads them with the message, not the old reply", async () => {
    const id = newId();
    const asked = user('hi');
    await post('onboarding', id, [asked], 'submit-message');
    const waiting = (await record(id)).pendingActions[0];
    await server.api('POST', `/api/conversations/${id}/actions/${waiting.id}`, {
      token: 'ada',
      body: { resolution: { type: 'question', answers: { team: 'data' } } },
    });
    const old = (await record(id)).messages.at(-1).parts[0].text as string;

    const again = await post('onboarding', id, [asked], 'regenerate-message');
    expect(again.chunks.some((chunk) => chunk.type === 'tool-input-available')).toBe(false);
    const prompt = JSON.stringify(greeter.calls.at(-1)!.messages);
    expect(prompt).toContain('Which team are you on? → Data');
    expect(prompt).not.toContain(old);
    expect((await record(id)).pendingActions).toBeUndefined();
  });
});
