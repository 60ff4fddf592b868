/**
 * The AI SDK chat endpoint at the protocol level: every chunk is checked against the AI SDK's own
 * chunk schema and folded into a message with its own `readUIMessageStream`, so what a `useChat`
 * client would hold is what these tests look at. (The hook itself: test/use-chat.)
 */
import { safeValidateTypes } from '@ai-sdk/provider-utils';
import {
  lastAssistantMessageIsCompleteWithToolCalls,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSse, startServer, supportAgent, type TestServer } from '../../test/http-fixtures.js';
import { scriptedModel } from '../testing/scripted-model.js';

let server: TestServer;
let counter = 0;
const newId = () => `chat-${Date.now().toString(36)}-${counter++}`;

beforeAll(async () => {
  const ran = new Map<string, number>();
  const intake = {
    name: 'intake',
    model: scriptedModel(() => ({ text: 'Thanks.' })),
    intake: {
      preamble: 'Before we start:',
      questions: [
        {
          header: 'Team',
          prompt: 'Which team are you on?',
          options: [{ value: 'web', label: 'Web' }],
          defaults: ['web'],
        },
      ],
    },
  };
  server = await startServer({ agents: [supportAgent(ran), intake] });
  server.ran = ran;
});
afterAll(async () => {
  await server.close();
});

interface ChatReply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  error?: any;
  headers: Headers;
  chunks: UIMessageChunk[];
  /** The assistant message as a client holds it after this reply. */
  message?: UIMessage;
}

/** Posts what `DefaultChatTransport` posts and reads the reply the way `useChat` does. */
async function chat(
  agent: string,
  id: string,
  messages: UIMessage[],
  options: { token?: string; trigger?: string } = {},
): Promise<ChatReply> {
  const response = await fetch(`${server.url}/api/ai-sdk/chat/${agent}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: JSON.stringify({
      id,
      messages,
      trigger: options.trigger ?? 'submit-message',
      messageId: messages.at(-1)?.id,
    }),
  });
  if (!response.ok)
    return { status: response.status, error: (await response.json()).error, headers: response.headers, chunks: [] };
  const text = await response.text();
  const data = parseSse(text).map((event) => event.data);
  expect(data.at(-1)).toBe('[DONE]');
  const chunks: UIMessageChunk[] = [];
  for (const item of data.slice(0, -1)) {
    const checked = await safeValidateTypes({ value: JSON.parse(item), schema: uiMessageChunkSchema as never });
    if (!checked.success) throw checked.error;
    chunks.push(checked.value as UIMessageChunk);
  }
  const last = messages.at(-1);
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const state of readUIMessageStream({
    message: last?.role === 'assistant' ? structuredClone(last) : undefined,
    stream,
    terminateOnError: true,
  })) {
    message = state;
  }
  return {
    status: response.status,
    headers: response.headers,
    chunks,
    message: message && JSON.parse(JSON.stringify(message)),
  };
}

const user = (text: string): UIMessage => ({ id: `u-${counter++}`, role: 'user', parts: [{ type: 'text', text }] });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyPart = any;
const toolParts = (message: UIMessage | undefined): AnyPart[] =>
  (message?.parts ?? []).filter((part) => part.type.startsWith('tool-'));

/** The browser's copy with `change` applied to each tool part (what `addToolOutput` / `addToolApprovalResponse` do). */
function answered(message: UIMessage, change: (part: AnyPart, index: number) => AnyPart): UIMessage {
  let index = 0;
  return {
    ...message,
    parts: message.parts.map((part) => (part.type.startsWith('tool-') ? change(part, index++) : part)),
  };
}

/** A message without `toolMetadata` and empty metadata: the stream sends an action as asked, a reload as it is now. */
function withoutMetadata(message: UIMessage): UIMessage {
  const { metadata: _metadata, ...rest } = message;
  return {
    ...rest,
    parts: message.parts.map((part) => ({ ...part, toolMetadata: undefined }) as UIMessage['parts'][number]),
  };
}

async function reload(agent: string, id: string, token?: string) {
  const response = await fetch(`${server.url}/api/ai-sdk/chat/${agent}/${id}/messages`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, body: await response.json() };
}

describe('POST /api/ai-sdk/chat/:agent', () => {
  it('streams a paused approval as UI message chunks, and the messages endpoint serves the same message', async () => {
    const id = newId();
    const first = user('refund order 42');
    const reply = await chat('support', id, [first], { token: 'ada' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(reply.chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'start-step',
      'tool-input-available',
      'tool-input-available',
      'tool-approval-request',
      'finish-step',
      'finish',
    ]);
    const [part] = toolParts(reply.message);
    const pending = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions[0];
    expect(part).toMatchObject({
      type: 'tool-issue_refund',
      state: 'approval-requested',
      input: { orderId: 42, amount: 5 },
      title: 'Run issue_refund?',
      approval: { id: pending.id },
      toolMetadata: { heed: { id: pending.id, kind: 'approval', status: 'pending', canRemember: true } },
    });

    const loaded = await reload('support', id, 'ada');
    expect(loaded.status).toBe(200);
    expect(loaded.body.messages).toHaveLength(2);
    expect(loaded.body.messages[0]).toEqual({
      id: expect.any(String),
      role: 'user',
      parts: [{ type: 'text', text: 'refund order 42', state: 'done' }],
    });
    expect(loaded.body.messages[1]).toEqual(reply.message);
  });

  it('settles two approvals of one pause from one resubmission and continues once; a denied call becomes output-denied', async () => {
    const id = newId();
    const first = await chat('support', id, [user('refund twice')]);
    expect(toolParts(first.message).map((part) => part.state)).toEqual(['approval-requested', 'approval-requested']);
    const before = server.ran.get('issue_refund') ?? 0;
    const message = answered(first.message!, (part, index) => ({
      ...part,
      state: 'approval-responded',
      approval: { ...part.approval, approved: index === 0, ...(index === 1 ? { reason: 'Not this one.' } : {}) },
    }));
    const reply = await chat('support', id, [message]);
    expect(reply.status).toBe(200);
    expect(server.ran.get('issue_refund')).toBe(before + 1);
    expect(toolParts(reply.message).map((part) => part.state)).toEqual(['output-available', 'output-denied']);
    expect(reply.message!.parts.at(-1)).toMatchObject({ type: 'text', text: 'Done.' });
    const actions = (await server.api('GET', `/api/conversations/${id}/actions`)).body.actions;
    expect(actions.map((action: { resolution: unknown }) => action.resolution)).toEqual([
      { type: 'approval', decision: 'allow' },
      { type: 'approval', decision: 'deny', comment: 'Not this one.' },
    ]);
    // The reloaded message reads the same as the streamed one, its actions as they are now.
    const reloaded = (await reload('support', id)).body.messages[1];
    expect(withoutMetadata(reloaded)).toEqual(withoutMetadata(reply.message!));
    expect(toolParts(reloaded).map((part) => part.toolMetadata.heed.status)).toEqual(['resolved', 'resolved']);
  });

  it('an answer that leaves another request open starts no turn; the next one (re-sending the first) continues', async () => {
    const id = newId();
    const first = await chat('support', id, [user('refund twice')]);
    const one = answered(first.message!, (part, index) =>
      index === 0 ? { ...part, state: 'approval-responded', approval: { ...part.approval, approved: true } } : part,
    );
    const partial = await chat('support', id, [one]);
    expect(partial.chunks).toEqual([{ type: 'start' }, { type: 'finish', finishReason: 'tool-calls' }]);
    expect((await server.api('GET', `/api/conversations/${id}`)).body.runtime.status).toBe('requires_action');

    const both = answered(one, (part, index) =>
      index === 1 ? { ...part, state: 'approval-responded', approval: { ...part.approval, approved: true } } : part,
    );
    const rest = await chat('support', id, [both]);
    expect(rest.status).toBe(200);
    expect(toolParts(rest.message).map((part) => part.state)).toEqual(['output-available', 'output-available']);
  });

  it('questions: the part shows the questions as asked; a dismiss ends the turn without the model and closes the step', async () => {
    const id = newId();
    const first = await chat('support', id, [user('ask me')]);
    const [part] = toolParts(first.message);
    expect(part).toMatchObject({
      type: 'tool-ask',
      state: 'input-available',
      toolMetadata: { heed: { kind: 'question' } },
    });
    expect(part.input.questions.map((question: { id: string }) => question.id)).toEqual(['size', 'qty']);

    // addToolOutput({ state: 'output-error', errorText }) dismisses.
    const reply = await chat('support', id, [
      answered(first.message!, (call) => ({ ...call, state: 'output-error', errorText: 'Closed.' })),
    ]);
    expect(reply.chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'tool-output-error',
      'start-step',
      'finish-step',
      'finish',
    ]);
    expect(toolParts(reply.message)[0]).toMatchObject({ state: 'output-error', errorText: 'Dismissed by the user.' });
    // The finished reply is not one `sendAutomaticallyWhen` would send back.
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages: [reply.message!] })).toBe(false);
    // The reload has the same closing step (the empty metadata is what made the client keep it).
    expect(reply.message!.metadata).toEqual({});
    expect(withoutMetadata((await reload('support', id)).body.messages[1])).toEqual(withoutMetadata(reply.message!));
  });

  it('questions: skip takes the defaults; the part then shows the stored answers and the summary the model read', async () => {
    const id = newId();
    const first = await chat('support', id, [user('ask me')]);
    const reply = await chat('support', id, [
      answered(first.message!, (call) => ({ ...call, state: 'output-available', output: { skip: true } })),
    ]);
    expect(toolParts(reply.message)[0]).toMatchObject({
      state: 'output-available',
      output: {
        answers: { size: ['s'], qty: ['1'] },
        skipped: true,
        defaulted: ['size', 'qty'],
        summary: expect.stringContaining('skipped'),
      },
    });
  });

  it("client tools: the output settles the call and is not echoed back; errorText becomes the tool's error", async () => {
    const id = newId();
    const first = await chat('support', id, [user('read the page')]);
    const [part] = toolParts(first.message);
    expect(part).toMatchObject({
      type: 'tool-get_selection',
      state: 'input-available',
      input: { purpose: 'test' },
      toolMetadata: { heed: { kind: 'client_tool', clientKind: 'page' } },
    });

    const wrong = await chat('support', id, [
      answered(first.message!, (call) => ({ ...call, state: 'output-available', output: { text: 1 } })),
    ]);
    expect(wrong.status).toBe(400);
    expect(wrong.error.code).toBe('invalid_client_tool_result');

    const reply = await chat('support', id, [
      answered(first.message!, (call) => ({ ...call, state: 'output-available', output: { text: 'selected words' } })),
    ]);
    expect(reply.chunks.some((chunk) => chunk.type === 'tool-output-available')).toBe(false);
    expect(reply.message!.parts.at(-1)).toMatchObject({ type: 'text', text: 'Done.' });
    expect(toolParts((await reload('support', id)).body.messages[1])[0]).toMatchObject({
      state: 'output-available',
      output: { text: 'selected words' },
    });

    const second = await chat('support', id, [user('read the page again')]);
    await chat('support', id, [
      answered(second.message!, (call) => ({ ...call, state: 'output-error', errorText: 'Nothing is selected.' })),
    ]);
    expect(toolParts((await reload('support', id)).body.messages[3])[0]).toMatchObject({
      state: 'output-error',
      errorText: 'Nothing is selected.',
    });
  });

  it("a tool's own request (ctx.openUrl) waits on the tool's part, answered with addToolOutput; the tool then runs on", async () => {
    const id = newId();
    const first = await chat('support', id, [user('link my account')]);
    const [part] = toolParts(first.message);
    expect(part).toMatchObject({
      type: 'tool-connect',
      state: 'input-available',
      input: {},
      toolMetadata: { heed: { kind: 'url', url: 'https://example.com/connect' } },
    });
    const reply = await chat('support', id, [
      answered(first.message!, (call) => ({ ...call, state: 'output-available', output: { decision: 'accept' } })),
    ]);
    expect(toolParts(reply.message)[0]).toMatchObject({ state: 'output-available', output: { outcome: 'accept' } });
  });

  it('intake questions show as an `intake` part whose input is the questions', async () => {
    const reply = await chat('intake', newId(), [user('hello')]);
    expect(toolParts(reply.message)).toMatchObject([
      {
        type: 'tool-intake',
        state: 'input-available',
        input: { preamble: 'Before we start:', questions: [{ id: 'Team', prompt: 'Which team are you on?' }] },
      },
    ]);
  });

  it('refuses with the usual error bodies: stale answers, regenerate, a message while waiting, nothing answered, ids and owners', async () => {
    const id = newId();
    const first = await chat('support', id, [user('refund order 42')], { token: 'ada' });
    const approve = answered(first.message!, (part) => ({
      ...part,
      state: 'approval-responded',
      approval: { ...part.approval, approved: true },
    }));

    expect((await chat('support', id, [user('something else')], { token: 'ada' })).error).toMatchObject({
      code: 'action_pending',
    });
    expect((await chat('support', id, [first.message!], { token: 'ada' })).error).toMatchObject({
      code: 'invalid_request',
      details: { pendingActionIds: [expect.any(String)] },
    });
    expect((await chat('support', id, [approve], { token: 'bob' })).status).toBe(404);
    expect((await chat('intake', id, [approve], { token: 'ada' })).status).toBe(404);
    expect(
      (await chat('support', id, [user('hi')], { token: 'ada', trigger: 'regenerate-message' })).error,
    ).toMatchObject({ code: 'invalid_request' });

    expect((await chat('support', id, [approve], { token: 'ada' })).status).toBe(200);
    // The same answer again (another tab, a stale page): the stored outcome comes back.
    const again = await chat('support', id, [approve], { token: 'ada' });
    expect(again.status).toBe(409);
    expect(again.error).toMatchObject({
      code: 'action_not_pending',
      details: { resolution: { type: 'approval', decision: 'allow' }, resolvedBy: 'ada' },
    });

    // Someone else's id is not taken over, and a bad id is refused.
    const taken = await chat('support', id, [user('hello')], { token: 'bob' });
    expect(taken.status).toBe(404);
    expect((await chat('support', 'not an id!', [user('hello')])).error).toMatchObject({ code: 'invalid_request' });
    // A chat not started yet, another user's and another agent's all read as empty, and nothing is created.
    for (const [agent, chatId, token] of [
      ['support', 'no-such-chat', 'ada'],
      ['support', id, 'bob'],
      ['intake', id, 'ada'],
    ]) {
      expect(await reload(agent, chatId, token)).toEqual({ status: 200, body: { messages: [] } });
    }
    await expect(server.heed.conversation('no-such-chat').get()).rejects.toMatchObject({ code: 'not_found' });
    expect((await fetch(`${server.url}/api/ai-sdk/chat/support/no-such-chat/stream`)).status).toBe(204);
    await expect(server.heed.createConversation({ agent: 'support', id })).rejects.toMatchObject({
      code: 'invalid_request',
      details: { field: 'id' },
    });
    await expect(server.heed.createConversation({ agent: 'support', id: 'a b' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    const resume = await fetch(`${server.url}/api/ai-sdk/chat/support/${id}/stream`, {
      headers: { authorization: 'Bearer ada' },
    });
    expect(resume.status).toBe(204);
  });
});
