import { AIMessage } from '@langchain/core/messages';
import { END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { Agent, setTracingDisabled, tool as openaiTool, type ModelRequest } from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { langgraphAgent } from '../agents/langgraph/langgraph-agent.js';
import { openaiAgent } from '../agents/openai-agents/openai-agent.js';
import { assistantText, functionCall, scriptedOpenAIModel } from '../../test/fixtures/openai-agents-model.js';
import { scriptedModel, type ScriptedPrompt } from '../testing/scripted-model.js';
import { tool } from '../tool.js';
import type { AgentConfig } from '../config.js';

/**
 * Agents that call agents, over real HTTP: a handler agent, a LangGraph agent and an OpenAI Agents JS agent as
 * children, and a child's approval policy.
 */

beforeAll(() => setTracingDisabled(true));

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function toolText(messages: ScriptedPrompt): string | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return undefined;
  return String((last.content[0] as { output: { value: unknown } }).output.value);
}

/** A lead agent that hands its task to `child` and says what came back. */
function leadOf(child: string): AgentConfig {
  return {
    name: 'lead',
    agents: [child],
    model: scriptedModel(({ messages }) => {
      const result = toolText(messages);
      return result
        ? { text: `Done: ${result}` }
        : { toolCalls: [{ toolName: `agent_${child}`, input: { task: 'Refund order 7.' } }] };
    }),
  };
}

async function start(agents: AgentConfig[], tokens?: Record<string, { userId: string }>) {
  const server = await startServer({ agents, ...(tokens ? { auth: { tokens } } : {}) });
  servers.push(server);
  const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'lead' } })).body;
  const sent = await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'go' } });
  const get = async (conversationId: string, token = 'ada') =>
    (await server.api('GET', `/api/conversations/${conversationId}`, { token })).body;
  const lastText = async () => (await get(id)).messages.at(-1)?.parts[0]?.text as string | undefined;
  return { server, id: id as string, sent, get, lastText };
}

describe('children of every kind', () => {
  it('a handler agent as a child: its pause is the parent’s, its resolveAction reply the call’s result', async () => {
    const refunds: AgentConfig = {
      name: 'refunds',
      description: 'Refunds orders.',
      handler: {
        processMessage: () => ({
          content: 'Checking.',
          pendingActions: [{ kind: 'approval', title: 'Refund order 7', toolName: 'refund', args: { order: 7 } }],
        }),
        resolveAction: ({ resolution }) => ({
          content: (resolution as { decision?: string }).decision === 'allow' ? 'Refunded order 7.' : 'Not refunded.',
        }),
      },
    };
    const { server, id, sent, lastText, get } = await start([leadOf('refunds'), refunds]);
    expect(sent.body.status).toBe('requires_action');
    const [pending] = sent.body.pendingActions;
    expect(pending).toMatchObject({ kind: 'approval', title: 'Refund order 7', via: [{ agent: 'refunds' }] });
    const answered = await server.api('POST', `/api/conversations/${id}/actions/${pending.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    await expect.poll(async () => (await get(id)).conversation.status).toBe('idle');
    expect(await lastText()).toBe('Done: Refunded order 7.');
  });

  it('a LangGraph agent as a child: its interrupt is a question asked through the parent, its answer resumes the graph', async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('ask', () => {
        const reason = interrupt('Why refund order 7?') as string;
        return { messages: [new AIMessage(`Refunded because: ${reason}`)] };
      })
      .addEdge(START, 'ask')
      .addEdge('ask', END)
      .compile();
    const { server, id, sent, lastText, get } = await start([
      leadOf('clerk'),
      langgraphAgent({ name: 'clerk', graph }),
    ]);
    const [pending] = sent.body.pendingActions;
    expect(pending).toMatchObject({ kind: 'question', via: [{ agent: 'clerk' }] });
    const answered = await server.api('POST', `/api/conversations/${id}/actions/${pending.id}`, {
      token: 'ada',
      body: { resolution: { type: 'question', answers: { answer: ['damaged'] } } },
    });
    expect(answered.status).toBe(200);
    await expect.poll(async () => (await get(id)).conversation.status).toBe('idle');
    expect(await lastText()).toBe('Done: Refunded because: damaged');
  });

  it("an OpenAI Agents JS agent as a child: its tool's approval is answered through the parent, its reply the call's result", async () => {
    const refunds: unknown[] = [];
    const requests: ModelRequest[] = [];
    const refund = openaiTool({
      name: 'refund',
      description: 'Refund an order',
      parameters: z.object({ orderId: z.string(), amount: z.number() }),
      needsApproval: true,
      execute: (args) => {
        refunds.push(args);
        return `Refunded ${args.amount} on ${args.orderId}`;
      },
    });
    const clerk = openaiAgent({
      name: 'clerk',
      description: 'Refunds orders.',
      agent: new Agent({
        name: 'clerk',
        instructions: 'Refund what you are asked to.',
        model: scriptedOpenAIModel(
          [[functionCall('refund', { orderId: '7', amount: 30 })], [assistantText('Refunded 30 on order 7.')]],
          requests,
        ),
        tools: [refund],
      }),
    });
    const { server, id, sent, lastText, get } = await start([leadOf('clerk'), clerk]);
    expect(sent.body.status).toBe('requires_action');
    const [pending] = sent.body.pendingActions;
    expect(pending).toMatchObject({
      kind: 'approval',
      toolName: 'refund',
      args: { orderId: '7', amount: 30 },
      via: [{ agent: 'clerk' }],
    });
    // The task is what the child's agent was sent.
    expect(JSON.stringify(requests[0].input)).toContain('Refund order 7.');
    expect(refunds).toEqual([]);
    const answered = await server.api('POST', `/api/conversations/${id}/actions/${pending.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    await expect.poll(async () => (await get(id)).conversation.status).toBe('idle');
    expect(await lastText()).toBe('Done: Refunded 30 on order 7.');
    expect(refunds).toEqual([{ orderId: '7', amount: 30 }]);
    // The child at rest with its reply; the same answer again is 409 with the stored one, and runs nothing.
    const child = await get(pending.conversationId);
    expect(child.conversation.status).toBe('idle');
    expect(child.messages.at(-1)?.parts[0]?.text).toBe('Refunded 30 on order 7.');
    const again = await server.api('POST', `/api/conversations/${id}/actions/${pending.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.details.resolution).toMatchObject({ decision: 'allow' });
    expect(refunds).toHaveLength(1);
  });

  it("the child's approval policy decides who answers: an approver who is not the parent's owner, the owner refused", async () => {
    const ran: unknown[] = [];
    const ops: AgentConfig = {
      name: 'ops',
      tools: {
        refund: tool({
          inputSchema: z.object({ order: z.number() }),
          needsApproval: true,
          approval: { approvers: ['bob'] },
          execute: async (input) => {
            ran.push(input);
            return 'refunded';
          },
        }),
      },
      model: scriptedModel(({ messages }) =>
        toolText(messages) ? { text: 'Refund made.' } : { toolCalls: [{ toolName: 'refund', input: { order: 7 } }] },
      ),
    };
    const { server, id, sent, lastText, get } = await start([leadOf('ops'), ops], {
      ada: { userId: 'ada' },
      bob: { userId: 'bob' },
    });
    const [pending] = sent.body.pendingActions;
    expect(pending).toMatchObject({ approvers: ['bob'], via: [{ agent: 'ops' }] });
    const owner = await server.api('POST', `/api/conversations/${id}/actions/${pending.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(owner.status).toBe(403);
    expect(owner.body.error.code).toBe('action_forbidden');
    // The approver reads and answers it where it waits: the child conversation.
    expect((await get(pending.conversationId, 'bob')).pendingActions[0].id).toBe(pending.id);
    const approver = await server.api('POST', `/api/conversations/${pending.conversationId}/actions/${pending.id}`, {
      token: 'bob',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(approver.status).toBe(200);
    await expect.poll(async () => (await get(id)).conversation.status).toBe('idle');
    expect(await lastText()).toBe('Done: Refund made.');
    expect(ran).toEqual([{ order: 7 }]);
  });
});
