/**
 * The real provider packages of both AI SDK majors drive an agent: `@ai-sdk/openai`'s chat model (3 for
 * AI SDK 6, 4 for AI SDK 7) against a loopback server that streams the Chat Completions wire format,
 * and `@ai-sdk/anthropic` (3 and 4) against one that streams the Messages format. The turn pauses on
 * an approval, a person approves with edited arguments over HTTP, the tool runs once, and the second
 * request the model server received carries the tool's result.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAnthropic as createAnthropic6 } from '@ai-sdk/anthropic';
import { createAnthropic as createAnthropic7 } from '@ai-sdk/anthropic-v4';
import { createOpenAI as createOpenAI6 } from '@ai-sdk/openai';
import { createOpenAI as createOpenAI7 } from '@ai-sdk/openai-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentConfig } from '../src/config.js';
import type { AgentModel } from '../src/engine/turn/model-spec.js';
import { memoryStore } from '../src/store/memory/memory-store.js';
import { tool } from '../src/tool.js';
import { startServer, type TestServer } from './http-fixtures.js';

type Wire = 'chat-completions' | 'messages';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

/** A model server on loopback: records each request body and answers with `respond`'s SSE events. */
async function modelServer(wire: Wire) {
  const received: Body[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    // `heed serve` asks each provider for its models once at start (src/cli/model-check.ts): a list, not a call.
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [] }));
      return;
    }
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const body = JSON.parse(raw) as Body;
      received.push(body);
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const answered =
        wire === 'chat-completions' ? body.messages.some((m: Body) => m.role === 'tool') : hasToolResult(body);
      for (const event of wire === 'chat-completions' ? chatCompletion(answered) : anthropicMessage(answered))
        response.write(event);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function hasToolResult(body: Body): boolean {
  return body.messages.some(
    (m: Body) => Array.isArray(m.content) && m.content.some((part: Body) => part.type === 'tool_result'),
  );
}

const REFUND_ARGS = ['{"order', 'Id": 42, "am', 'ount": 5', '}'];

/** Chat Completions chunks: a tool call whose arguments come in pieces, or text; usage in the last chunk. */
function chatCompletion(answered: boolean): string[] {
  const chunk = (delta: Body, finish: string | null = null, usage: Body = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-test', choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
  const events = [chunk({ role: 'assistant', content: '' })];
  if (!answered) {
    events.push(
      chunk({
        tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'issue_refund', arguments: '' } }],
      }),
    );
    for (const piece of REFUND_ARGS) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
    events.push(chunk({}, 'tool_calls'));
    events.push(chunk(null, null, { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 }));
  } else {
    for (const piece of ['Refunded ', 'the ', 'order.']) events.push(chunk({ content: piece }));
    events.push(chunk({}, 'stop'));
    events.push(chunk(null, null, { prompt_tokens: 60, completion_tokens: 4, total_tokens: 64 }));
  }
  events.push('data: [DONE]\n\n');
  return events;
}

/** Messages events: message_start, one content block streamed in deltas, message_delta with usage, message_stop. */
function anthropicMessage(answered: boolean): string[] {
  const event = (type: string, data: Body) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const events = [
    event('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 40, output_tokens: 1 },
      },
    }),
  ];
  if (!answered) {
    events.push(
      event('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_abc', name: 'issue_refund', input: {} },
      }),
    );
    for (const piece of REFUND_ARGS)
      events.push(event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: piece } }));
  } else {
    events.push(event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    for (const piece of ['Refunded ', 'the ', 'order.'])
      events.push(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } }));
  }
  events.push(event('content_block_stop', { index: 0 }));
  events.push(
    event('message_delta', {
      delta: { stop_reason: answered ? 'end_turn' : 'tool_use', stop_sequence: null },
      usage: { output_tokens: 12 },
    }),
  );
  events.push(event('message_stop', {}));
  return events;
}

const providers: Array<{ name: string; wire: Wire; spec: 'v3' | 'v4'; model(baseURL: string): AgentModel }> = [
  {
    name: '@ai-sdk/openai 4 (AI SDK 7)',
    wire: 'chat-completions',
    spec: 'v4',
    model: (baseURL) => createOpenAI7({ baseURL, apiKey: 'sk-test' }).chat('gpt-test'),
  },
  {
    name: '@ai-sdk/openai 3 (AI SDK 6)',
    wire: 'chat-completions',
    spec: 'v3',
    model: (baseURL) => createOpenAI6({ baseURL, apiKey: 'sk-test' }).chat('gpt-test'),
  },
  {
    name: '@ai-sdk/anthropic 4 (AI SDK 7)',
    wire: 'messages',
    spec: 'v4',
    model: (baseURL) => createAnthropic7({ baseURL, apiKey: 'sk-test' })('claude-test'),
  },
  {
    name: '@ai-sdk/anthropic 3 (AI SDK 6)',
    wire: 'messages',
    spec: 'v3',
    model: (baseURL) => createAnthropic6({ baseURL, apiKey: 'sk-test' })('claude-test'),
  },
];

describe.each(providers)('$name over a loopback model server', (provider) => {
  let models: Awaited<ReturnType<typeof modelServer>>;
  let server: TestServer;
  const store = memoryStore();
  const runs: Array<{ orderId: number; amount: number }> = [];

  beforeAll(async () => {
    models = await modelServer(provider.wire);
    const agent: AgentConfig = {
      name: 'support',
      model: provider.model(models.url),
      instructions: 'You help with refunds.',
      tools: {
        issue_refund: tool({
          description: 'Refund an order.',
          inputSchema: z.object({ orderId: z.number().int(), amount: z.number().positive().max(100) }),
          needsApproval: true,
          execute: async (input) => {
            runs.push(input);
            return { refunded: input.amount };
          },
        }),
      },
    };
    server = await startServer({ agents: [agent], store });
  });
  afterAll(async () => {
    await server.close();
    await models.close();
  });

  it('pauses on the approval, runs the tool once with the edited arguments, and sends its result back to the model', async () => {
    expect(provider.model(models.url).specificationVersion).toBe(provider.spec);
    const created = await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const paused = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'Refund order 42, please.' },
    });
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('requires_action');
    const [action] = paused.body.pendingActions;
    // The arguments arrived in four pieces and were put back together.
    expect(action).toMatchObject({ kind: 'approval', toolName: 'issue_refund', args: { orderId: 42, amount: 5 } });
    expect(runs).toEqual([]);
    expect(models.received).toHaveLength(1);
    expect(JSON.stringify(models.received[0])).toContain('Refund order 42, please.');
    expect(JSON.stringify(models.received[0])).toContain('issue_refund');

    const done = await server.api('POST', `/api/conversations/${id}/actions/${action.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow', approvedArgs: { orderId: 42, amount: 3 } } },
    });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(runs).toEqual([{ orderId: 42, amount: 3 }]);
    const reply = done.body.messages.find((message: Body) => message.role === 'assistant');
    expect(reply.parts).toEqual([{ type: 'text', text: 'Refunded the order.' }]);

    // The model server's second request holds the call (with the arguments as approved) and its result.
    expect(models.received).toHaveLength(2);
    const second = models.received[1];
    if (provider.wire === 'chat-completions') {
      const call = second.messages.find((m: Body) => m.role === 'assistant').tool_calls[0];
      expect(call).toMatchObject({ id: 'call_abc', function: { name: 'issue_refund' } });
      const result = second.messages.find((m: Body) => m.role === 'tool');
      expect(result.tool_call_id).toBe('call_abc');
      expect(JSON.parse(result.content)).toEqual({ refunded: 3 });
    } else {
      const use = second.messages
        .flatMap((m: Body) => (Array.isArray(m.content) ? m.content : []))
        .find((part: Body) => part.type === 'tool_use');
      expect(use).toMatchObject({ id: 'toolu_abc', name: 'issue_refund' });
      const result = second.messages
        .flatMap((m: Body) => (Array.isArray(m.content) ? m.content : []))
        .find((part: Body) => part.type === 'tool_result');
      expect(result.tool_use_id).toBe('toolu_abc');
      expect(JSON.stringify(result.content)).toContain('{\\"refunded\\":3}');
    }
    expect(JSON.stringify(second.system ?? second.messages[0])).toContain('You help with refunds.');

    // Usage from the last chunk of each stream was counted.
    const tokens = (await store.getConversation(id))!.tokensUsed;
    expect(tokens).toBe(provider.wire === 'chat-completions' ? 52 + 64 : 52 + 52);
  });

  it('sends the model the call as approved: the edited arguments, in the turn that runs it and in every later one', async () => {
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body;
    const paused = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'Refund order 42, please.' },
    });
    const [action] = paused.body.pendingActions;
    const from = models.received.length;
    const done = await server.api('POST', `/api/conversations/${id}/actions/${action.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow', approvedArgs: { orderId: 42, amount: 2 } } },
    });
    expect(done.body.status).toBe('completed');
    const later = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'Thanks!' },
    });
    expect(later.body.status).toBe('completed');

    const sent = models.received.slice(from);
    expect(sent).toHaveLength(2);
    for (const body of sent) {
      if (provider.wire === 'chat-completions') {
        const call = body.messages.find((m: Body) => m.role === 'assistant').tool_calls[0];
        expect(JSON.parse(call.function.arguments)).toEqual({ orderId: 42, amount: 2 });
        expect(JSON.parse(body.messages.find((m: Body) => m.role === 'tool').content)).toEqual({ refunded: 2 });
      } else {
        const parts = body.messages.flatMap((m: Body) => (Array.isArray(m.content) ? m.content : []));
        expect(parts.find((part: Body) => part.type === 'tool_use').input).toEqual({ orderId: 42, amount: 2 });
        expect(JSON.stringify(parts.find((part: Body) => part.type === 'tool_result').content)).toContain(
          '{\\"refunded\\":2}',
        );
      }
      // The model asked for 5; once the person approved 2, it never reads 5 again.
      expect(JSON.stringify(body)).not.toMatch(/"amount\\?":\s*5\b/);
    }
  });
});
