import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { deliver, platformFake, type PlatformFake, type PlatformName } from '../../test/channels/platforms.js';
import { scriptedModel, type ScriptedPrompt } from '../testing/scripted-model.js';
import { tool } from '../tool.js';
import type { AgentConfig } from '../config.js';
import { memoryStore } from '../store/memory/memory-store.js';

/**
 * Agents that call agents in a chat thread (docs/concepts.md, docs/channels.md): the thread's agent calls a
 * child agent whose refund needs approval. The child's request is posted in the parent's thread, naming the
 * child agent; an answer there settles it once, the child's reply is the parent's tool result, and the
 * parent replies in the thread. Over real HTTP, with a local fake of each platform's API
 * (test/channels/platforms.ts): buttons (Telegram, Discord) and comment commands (GitHub).
 */

let server: TestServer | undefined;
let fake: PlatformFake | undefined;
afterEach(async () => {
  await server?.close();
  await fake?.close();
  server = fake = undefined;
});

/** The text of the last tool result the model was sent. */
function lastToolResult(messages: ScriptedPrompt): string | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return undefined;
  return String((last.content[0] as { output: { value: unknown } }).output.value);
}

function agents(ran: { refunds: number }): AgentConfig[] {
  const lead: AgentConfig = {
    name: 'lead',
    agents: ['refunds'],
    model: scriptedModel(({ messages }) => {
      const result = lastToolResult(messages);
      if (result !== undefined) return { text: `Lead: ${result}` };
      return { toolCalls: [{ toolName: 'agent_refunds', input: { task: 'Refund order 42.' } }] };
    }),
  };
  const refunds: AgentConfig = {
    name: 'refunds',
    description: 'Issues refunds.',
    tools: {
      issue_refund: tool({
        inputSchema: z.object({ orderId: z.number().int(), amount: z.number() }),
        needsApproval: true,
        execute: async (input) => {
          ran.refunds++;
          return { refunded: input.amount };
        },
      }),
    },
    model: scriptedModel(({ messages }) =>
      lastToolResult(messages) !== undefined
        ? { text: 'Refunded 5.' }
        : { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] },
    ),
  };
  return [lead, refunds];
}

const platforms: PlatformName[] = ['telegram', 'discord', 'github'];

describe.each(platforms)("a child agent's request in its parent's %s thread", (name) => {
  it('is posted there naming the child agent; an answer there settles it once and the parent replies in the thread', async () => {
    const ran = { refunds: 0 };
    fake = await platformFake(name);
    const store = memoryStore();
    server = await startServer({
      store,
      agents: agents(ran),
      channels: { [name]: { agent: 'lead', ...fake.config } },
      notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
    });
    const url = server.url;
    const platform = fake;

    expect((await deliver(url, name, platform.mention())).status).toBe(200);
    await platform.api.until(() => platform.requests().length === 1);
    const [request] = platform.requests();
    const posted = JSON.stringify(request.body);
    expect(posted).toContain('Asked by the agent refunds');
    expect(posted).toMatch(/orderId.{0,8}42/);

    // The click (or command), and the platform's retry of it: the refund runs once.
    const approve = platform.approve(request);
    expect((await deliver(url, name, approve)).status).toBe(200);
    expect((await deliver(url, name, approve)).status).toBe(200);
    await platform.api.until(() => platform.posted('Lead: Refunded 5.').length === 1);
    await platform.api.until(() => platform.edits().some((edit) => edit.includes('Allowed by @bob')));
    expect(ran.refunds).toBe(1);
    // The child's own reply is the parent's tool result, not a post in the thread.
    expect(platform.posted('Refunded 5.')).toHaveLength(0);
    expect(platform.requests()).toHaveLength(1);

    // The record: the child's action settled from the platform, by Bob; both conversations at rest.
    const [thread] = (await store.listConversations({})).filter((entry) => entry.channel !== null);
    const [child] = (await store.listConversations({})).filter((entry) => entry.agent === 'refunds');
    expect(thread).toMatchObject({ agent: 'lead', status: 'idle' });
    expect(child).toMatchObject({ status: 'idle' });
    const [action] = await store.listActions(child.id);
    expect(action).toMatchObject({ status: 'resolved', channel: name, resolvedBy: expect.stringMatching(`^${name}:`) });
    expect(await store.listActions(thread.id)).toEqual([]);
  });
});
