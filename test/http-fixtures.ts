/**
 * Shared by the HTTP tests: a server in this process, agents that exercise every kind of action, and a
 * small `api()` that returns status, headers and parsed body. `api()` calls the app in process (as Hono's
 * `app.request()`); the server also listens on a loopback port (`url`) for the tests where the socket is
 * the point: live streams, disconnects, clients that take a base URL.
 */
import { z } from 'zod';
import { readSse } from '../src/client/sse-reader.js';
import type { AgentConfig, HeedConfig } from '../src/config.js';
import { serve, type RunningServer } from '../src/cli/serve.js';
import { memoryStore } from '../src/store/memory/memory-store.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import { tool } from '../src/tool.js';
import { sizeQuestions } from './fixtures/size-questions.js';

export interface TestServer extends RunningServer {
  api(
    method: string,
    path: string,
    options?: { body?: unknown; raw?: string; token?: string; headers?: Record<string, string> },
  ): Promise<ApiResponse>;
  /** Times each tool ran, by name. */
  ran: Map<string, number>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export const tokens = {
  ada: { userId: 'ada' },
  adaPage: { userId: 'ada', data: { page: true } },
  bob: { userId: 'bob', data: { role: 'approver' } },
};

/** A gate a tool or model can wait on, opened by the test. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/**
 * `support`: "refund" → an approval (issue_refund), "twice" → two approvals in one pause, "ask" → the ask tool (options + typed inputs),
 * "page" → a client tool, "link" → a tool that asks to open a URL, "slow" → a model call that waits on
 * `slow`, anything else → "Hello.". After any tool result it says "Done.".
 */
export function supportAgent(ran: Map<string, number>, slow?: { opened: Promise<void> }): AgentConfig {
  const count = (name: string) => ran.set(name, (ran.get(name) ?? 0) + 1);
  const model = scriptedModel(async ({ messages }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') return { text: 'Done.' };
    const text =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    if (text.includes('twice')) {
      return {
        toolCalls: [
          { toolName: 'issue_refund', input: { orderId: 1, amount: 1 } },
          { toolName: 'issue_refund', input: { orderId: 2, amount: 2 } },
        ],
      };
    }
    if (text.includes('refund'))
      return { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] };
    if (text.includes('ask')) {
      return {
        toolCalls: [
          {
            toolName: 'ask',
            input: {
              questions: sizeQuestions,
            },
          },
        ],
      };
    }
    if (text.includes('page')) return { toolCalls: [{ toolName: 'get_selection', input: { purpose: 'test' } }] };
    if (text.includes('link')) return { toolCalls: [{ toolName: 'connect', input: {} }] };
    if (text.includes('slow')) await slow?.opened;
    return { text: 'Hello.' };
  });
  return {
    name: 'support',
    description: 'Test agent',
    model,
    ask: true,
    tools: {
      issue_refund: tool({
        inputSchema: z.object({ orderId: z.number().int(), amount: z.number().max(500) }),
        needsApproval: true,
        execute: async (input) => {
          count('issue_refund');
          return { refunded: input.amount };
        },
      }),
      get_selection: tool({
        inputSchema: z.object({ purpose: z.string() }),
        outputSchema: z.object({ text: z.string() }),
        client: { kind: 'page', access: ({ caller }) => caller?.userId === null || caller?.data?.page === true },
      }),
      connect: tool({
        inputSchema: z.object({}),
        execute: async (_input, context) => {
          const outcome = await context.openUrl({ url: 'https://example.com/connect', title: 'Connect your account' });
          count('connect');
          return { outcome };
        },
      }),
    },
  };
}

/** Starts a real server on 127.0.0.1 with a free port. */
export async function startServer(
  config: Partial<HeedConfig> = {},
  slow?: { opened: Promise<void> },
  maxBodyBytes?: number,
): Promise<TestServer> {
  const ran = new Map<string, number>();
  const full: HeedConfig = {
    agents: [supportAgent(ran, slow)],
    store: memoryStore(),
    sweepIntervalMs: 0,
    auth: { tokens },
    ...config,
  };
  const server = await serve({ config: full, port: 0, log: () => undefined, maxBodyBytes });
  const api: TestServer['api'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await server.fetch(new Request(`${server.url}${path}`, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  return { ...server, api, ran };
}

/** Parses an SSE text body into events. */
export function parseSse(text: string): Array<{ event: string; id?: string; data: string }> {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => line && !line.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const field = (name: string) =>
        lines.filter((line) => line.startsWith(`${name}: `)).map((line) => line.slice(name.length + 2));
      return { event: field('event')[0] ?? 'message', id: field('id')[0], data: field('data').join('\n') };
    });
}

/**
 * Reads an open event stream as it comes: `events` grows, `ended()` says whether the server closed it.
 * The caller aborts `signal` to leave it.
 */
export function collectStream(
  response: Response,
  signal: AbortSignal,
): { events: Array<{ event: string; data: string }>; ended: () => boolean } {
  const events: Array<{ event: string; data: string }> = [];
  let done = false;
  void (async () => {
    for await (const event of readSse(response.body!, signal)) events.push(event);
  })()
    .catch(() => undefined)
    .finally(() => (done = true));
  return { events, ended: () => done };
}
