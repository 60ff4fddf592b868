import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentConfig, HeedConfig } from '../config.js';
import { checkConfig } from '../config-schema.js';
import { HeedError } from '../errors.js';
import { createHeed } from '../heed.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { startHttpServer } from '../../test/fixtures/mcp-server.mjs';

// A root `tools` / `ask` in the config is offered to every agent (seed 000: "adding it to the root tools
// list offers it to every agent"; seed 003: `forRoot({ ask: true })` or `@Agent({ ask: true })` for one).
// An agent's own setting wins: its own tool of the same name, its own `ask`.
describe('server-wide tools and ask', () => {
  let server: TestServer;
  const runs: string[] = [];
  const offered = new Map<string, string[][]>();

  /** A model that records the tools it is offered and calls the tool named in the user's text ("call <tool>"). */
  const model = (agent: string) =>
    scriptedModel(({ messages, tools }) => {
      offered.set(agent, [...(offered.get(agent) ?? []), tools]);
      const last = messages.at(-1);
      if (last?.role === 'tool') return { text: 'Done.' };
      const text =
        last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
      const named = /call (\w+)/.exec(text)?.[1];
      if (named === 'ask')
        return {
          toolCalls: [
            {
              toolName: 'ask',
              input: {
                questions: [{ header: 'Colour', prompt: 'Which?', options: [{ label: 'Red' }], defaults: ['Red'] }],
              },
            },
          ],
        };
      return named ? { toolCalls: [{ toolName: named, input: { orderId: 7 } }] } : { text: 'Hello.' };
    });

  const sharedTools = {
    lookup_order: tool({
      description: 'Look an order up.',
      inputSchema: z.object({ orderId: z.number() }),
      execute: async ({ orderId }) => (runs.push(`shared lookup_order ${orderId}`), { status: 'shipped' }),
    }),
    close_account: tool({
      description: 'Close the account of an order.',
      inputSchema: z.object({ orderId: z.number() }),
      needsApproval: true,
      execute: async ({ orderId }) => (runs.push(`shared close_account ${orderId}`), { closed: true }),
    }),
  };
  const plain: AgentConfig = { name: 'plain', model: model('plain') };
  const own: AgentConfig = {
    name: 'own',
    model: model('own'),
    ask: false,
    tools: {
      // Its own close_account, without approval: this one wins over the server's.
      close_account: tool({
        description: 'Close it (no approval here).',
        inputSchema: z.object({ orderId: z.number() }),
        execute: async ({ orderId }) => (runs.push(`own close_account ${orderId}`), { closed: 'own' }),
      }),
    },
  };

  beforeAll(async () => {
    server = await startServer({ agents: [plain, own], tools: sharedTools, ask: true } satisfies Partial<HeedConfig>);
  });
  afterAll(async () => {
    await server.close();
  });

  const start = async (agent: string) =>
    (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent } })).body.id as string;
  const send = (id: string, content: string) =>
    server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } });

  it('GET /api/agents counts the server-wide tools and ask in each agent’s capabilities', async () => {
    const agents = (await server.api('GET', '/api/agents', { token: 'ada' })).body.agents;
    expect(agents).toEqual([
      { name: 'plain', capabilities: { toolApproval: true, questions: true, intake: false, clientTools: false } },
      // Its own close_account needs no approval, and it said ask: false.
      { name: 'own', capabilities: { toolApproval: false, questions: false, intake: false, clientTools: false } },
    ]);
    expect((await server.api('GET', '/api/agents/plain', { token: 'ada' })).body).toEqual(agents[0]);
  });

  it('an agent with no tools of its own is offered the server’s tools and the ask tool, and uses them', async () => {
    const id = await start('plain');
    expect((await send(id, 'hi')).body.status).toBe('completed');
    expect(offered.get('plain')!.at(-1)).toEqual(['lookup_order', 'close_account', 'ask']);

    const looked = await send(id, 'call lookup_order');
    expect(looked.body.status).toBe('completed');
    expect(runs).toContain('shared lookup_order 7');

    // The server's tool keeps its own approval rule.
    const paused = await send(id, 'call close_account');
    expect(paused.body.status).toBe('requires_action');
    const [approval] = paused.body.pendingActions;
    expect(approval).toMatchObject({ kind: 'approval', toolName: 'close_account', args: { orderId: 7 } });
    expect(runs).not.toContain('shared close_account 7');
    const allowed = await server.api('POST', `/api/conversations/${id}/actions/${approval.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(allowed.body.status).toBe('completed');
    expect(runs.filter((run) => run === 'shared close_account 7')).toHaveLength(1);

    const asked = await send(id, 'call ask');
    expect(asked.body.status).toBe('requires_action');
    expect(asked.body.pendingActions[0]).toMatchObject({ kind: 'question', toolName: 'ask' });
  });

  it('an agent’s own tool wins by name, and its own ask: false withholds the ask tool', async () => {
    const id = await start('own');
    expect((await send(id, 'hi')).body.status).toBe('completed');
    expect(offered.get('own')!.at(-1)).toEqual(['close_account', 'lookup_order']);

    const before = runs.length;
    const closed = await send(id, 'call close_account');
    expect(closed.body.status).toBe('completed');
    expect(runs.slice(before)).toEqual(['own close_account 7']);
    const toolMessage = closed.body.messages.find((message: { role: string }) => message.role === 'tool');
    expect(toolMessage.parts[0].output).toEqual({ type: 'json', value: { closed: 'own' } });

    // The model calls ask anyway: it is not offered, so it is a tool error and nothing waits.
    const asked = await send(id, 'call ask');
    expect(asked.body.status).toBe('completed');
    expect(asked.body.pendingActions).toBeUndefined();
  });

  it('the config is checked at start: root tools and ask of the wrong shape stop it, naming the path', () => {
    const agents = [{ name: 'a', model: scriptedModel(() => ({ text: 'x' })) }];
    const refused = (config: unknown) => {
      try {
        checkConfig(config);
      } catch (thrown) {
        if (HeedError.isInstance(thrown)) return thrown.message;
      }
      return 'accepted';
    };
    expect(refused({ agents, tools: sharedTools, ask: true })).toBe('accepted');
    expect(refused({ agents, tools: [sharedTools.lookup_order] })).toContain(
      'tools: expected an object of tools by name',
    );
    expect(refused({ agents, tools: { lookup_order: 'x' } })).toContain(
      'tools.lookup_order: expected a tool made with tool({ ... })',
    );
    expect(refused({ agents, ask: 'yes' })).toContain('ask: expected true or false');
    const policy = refused({
      agents,
      tools: { close_account: { ...sharedTools.close_account, approval: { required: 0 } } },
    });
    expect(policy).toContain('tools.close_account.approval.required');
    // createHeed checks the same.
    expect(() => createHeed({ agents, ask: 1 as unknown as boolean })).toThrow(/ask: expected true or false/);
  });

  it('an MCP server of the agent wins over a server-wide tool of the same name; the agent’s own tool of that name still clashes', async () => {
    const mcp = await startHttpServer();
    try {
      const echoModel = scriptedModel(({ messages }) =>
        messages.at(-1)?.role === 'tool'
          ? { text: 'Done.' }
          : { toolCalls: [{ toolName: 'fixture_echo', input: { text: 'hi' } }] },
      );
      const shadow = tool({
        inputSchema: z.object({ text: z.string() }),
        execute: async () => (runs.push('shared fixture_echo'), 'shared'),
      });
      const heed = createHeed({
        agents: [{ name: 'mcp', model: echoModel, mcpServers: { fixture: { url: mcp.url } } }],
        tools: { fixture_echo: shadow },
        sweepIntervalMs: 0,
      });
      await heed.ready();
      const { id } = await heed.createConversation({ agent: 'mcp' });
      expect((await heed.conversation(id).send('echo')).status).toBe('completed');
      expect(runs).not.toContain('shared fixture_echo');
      const result = (await heed.conversation(id).get()).messages.find((message) => message.role === 'tool')!.parts[0];
      expect(JSON.stringify(result)).toContain('echo: hi');
      await heed.close();

      const clash = createHeed({
        agents: [
          { name: 'mcp', model: echoModel, tools: { fixture_echo: shadow }, mcpServers: { fixture: { url: mcp.url } } },
        ],
        sweepIntervalMs: 0,
      });
      await expect(clash.ready()).rejects.toThrow('has two tools named "fixture_echo"');
      await clash.close();
    } finally {
      await mcp.close();
    }
  });
});
