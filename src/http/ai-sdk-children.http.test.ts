/**
 * The AI SDK chat endpoint on a lead agent whose child asks for approval (docs/concepts.md, Agents that call
 * agents): the child's request shows in the lead's stream as an approval on the lead's `agent_ops` part, read
 * with the AI SDK's own `readUIMessageStream`, and answering it there (as `addToolApprovalResponse` does)
 * runs the child's tool and continues the lead, once.
 */
import { safeValidateTypes } from '@ai-sdk/provider-utils';
import { readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSse, startServer, type TestServer } from '../../test/http-fixtures.js';
import { z } from 'zod';
import { leadOps, toolText } from '../../test/fixtures/lead-ops.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';

let server: TestServer;
const restarts: string[] = [];
const checks: string[] = [];
beforeAll(async () => {
  const [lead, ops] = leadOps({ restarts });
  // A second lead whose child asks twice, one request after the other.
  const twice = {
    ...ops,
    name: 'ops2',
    tools: {
      check: tool({
        description: 'Check a service.',
        inputSchema: z.object({ service: z.string() }),
        needsApproval: true,
        execute: async ({ service }) => {
          checks.push(service);
          return 'ok';
        },
      }),
    },
    model: scriptedModel(({ messages }) => {
      const results = messages.filter((message) => message.role === 'tool').length;
      if (results >= 2) return { text: 'Checked both.' };
      return { toolCalls: [{ toolName: 'check', input: { service: results === 0 ? 'web' : 'db' } }] };
    }),
  };
  const lead2 = {
    name: 'lead2',
    agents: ['ops2'],
    model: scriptedModel(({ messages }) => {
      const result = toolText(messages);
      return result
        ? { text: `Done: ${result}` }
        : { toolCalls: [{ toolName: 'agent_ops2', input: { task: 'Check web, then db.' } }] };
    }),
  };
  server = await startServer({ agents: [lead, ops, lead2, twice] });
});
afterAll(async () => {
  await server.close();
});

/** Posts what `DefaultChatTransport` posts; the chunks (each checked against the AI SDK's schema) and the message a client then holds. */
async function chat(
  id: string,
  messages: UIMessage[],
  agent = 'lead',
): Promise<{ chunks: UIMessageChunk[]; message?: UIMessage }> {
  const response = await fetch(`${server.url}/api/ai-sdk/chat/${agent}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ada' },
    body: JSON.stringify({ id, messages, trigger: 'submit-message', messageId: messages.at(-1)?.id }),
  });
  expect(response.status).toBe(200);
  const data = parseSse(await response.text()).map((event) => event.data);
  expect(data.at(-1)).toBe('[DONE]');
  const chunks: UIMessageChunk[] = [];
  for (const item of data.slice(0, -1)) {
    const checked = await safeValidateTypes({ value: JSON.parse(item), schema: uiMessageChunkSchema as never });
    if (!checked.success) throw checked.error;
    chunks.push(checked.value as UIMessageChunk);
  }
  const last = messages.at(-1);
  let message: UIMessage | undefined;
  for await (const state of readUIMessageStream({
    message: last?.role === 'assistant' ? structuredClone(last) : undefined,
    stream: new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    }),
    terminateOnError: true,
  })) {
    message = state;
  }
  return { chunks, message: message && JSON.parse(JSON.stringify(message)) };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyPart = any;
const toolParts = (message: UIMessage | undefined): AnyPart[] =>
  (message?.parts ?? []).filter((part) => part.type.startsWith('tool-'));

/** The client's copy with the lead's part approved (what `addToolApprovalResponse` does). */
const approve = (message: UIMessage, approvalId: string): UIMessage => ({
  ...message,
  parts: message.parts.map((part) =>
    part.type.startsWith('tool-agent_')
      ? ({ ...part, state: 'approval-responded', approval: { id: approvalId, approved: true } } as AnyPart)
      : part,
  ),
});

describe('AI SDK chat: a child agent’s approval in the lead’s stream', () => {
  it("shows as an approval on the lead's agent_ops part; answering it there runs the child's tool and the lead goes on", async () => {
    const id = `chat-children-${Date.now().toString(36)}`;
    const first = await chat(id, [{ id: 'u-1', role: 'user', parts: [{ type: 'text', text: 'Restart web.' }] }]);
    expect(first.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
    const pending = (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body.pendingActions;
    expect(pending).toHaveLength(1);
    const [part] = toolParts(first.message);
    expect(part).toMatchObject({
      type: 'tool-agent_ops',
      state: 'approval-requested',
      input: { task: 'Restart web.' },
      approval: { id: pending[0].id },
      title: 'Run restart?',
      // What the lead's part does not say: the child's tool, its arguments, and the child it waits in.
      toolMetadata: {
        heed: {
          id: pending[0].id,
          kind: 'approval',
          toolName: 'restart',
          args: { service: 'web' },
          via: [{ conversationId: pending[0].conversationId, agent: 'ops' }],
        },
      },
    });
    // A reload while it waits shows the same part, ready to answer.
    const reload = await fetch(`${server.url}/api/ai-sdk/chat/lead/${id}/messages`, {
      headers: { authorization: 'Bearer ada' },
    });
    const reloaded = (await reload.json()).messages.at(-1);
    expect(toolParts(reloaded)).toEqual([
      expect.objectContaining({ type: 'tool-agent_ops', state: 'approval-requested', approval: { id: pending[0].id } }),
    ]);

    const answered: UIMessage = {
      ...first.message!,
      parts: first.message!.parts.map((each) =>
        each.type === 'tool-agent_ops'
          ? ({ ...each, state: 'approval-responded', approval: { id: pending[0].id, approved: true } } as AnyPart)
          : each,
      ),
    };
    const second = await chat(id, [answered]);
    expect(restarts).toEqual(['web']);
    await expect
      .poll(async () => (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body.runtime.status)
      .toBe('idle');
    // The client's copy ends with the lead's reply: the child's reply as the call's output, then the lead's text.
    expect(toolParts(second.message)).toEqual([
      expect.objectContaining({ type: 'tool-agent_ops', state: 'output-available', output: 'Restarted web.' }),
    ]);
    expect(second.message!.parts.at(-1)).toMatchObject({ type: 'text', text: 'Done: Restarted web.' });
  });

  it("a child that asks again after the answer: the answer's stream ends on the next approval, on the same part", async () => {
    const id = `chat-children-twice-${Date.now().toString(36)}`;
    const first = await chat(id, [{ id: 'u-2', role: 'user', parts: [{ type: 'text', text: 'Check.' }] }], 'lead2');
    const [asked] = toolParts(first.message);
    expect(asked).toMatchObject({ type: 'tool-agent_ops2', state: 'approval-requested' });

    const second = await chat(id, [approve(first.message!, asked.approval.id)], 'lead2');
    expect(checks).toEqual(['web']);
    expect(second.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
    const [again] = toolParts(second.message);
    expect(again).toMatchObject({
      type: 'tool-agent_ops2',
      state: 'approval-requested',
      toolMetadata: { heed: { toolName: 'check', args: { service: 'db' } } },
    });
    expect(again.approval.id).not.toBe(asked.approval.id);

    const third = await chat(id, [approve(second.message!, again.approval.id)], 'lead2');
    expect(checks).toEqual(['web', 'db']);
    expect(third.message!.parts.at(-1)).toMatchObject({ type: 'text', text: 'Done: Checked both.' });
  });
});
