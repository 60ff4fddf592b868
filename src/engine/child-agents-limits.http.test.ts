import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { scriptedModel, type ScriptedPrompt } from '../testing/scripted-model.js';
import type { AgentConfig } from '../config.js';

/**
 * Agents that call agents, against a model that asks too much (over real HTTP): a step that calls a child
 * fifty times starts `limits.childrenPerTurn` of them, a task of a megabyte starts none, and the model reads why.
 */

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

type Output = { type: string; value: unknown };

/** The results of the calls the model's previous step made, as it was sent them. */
function toolOutputs(messages: ScriptedPrompt): Output[] {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return [];
  return last.content.map((part) => (part as { output: Output }).output);
}

/** A lead whose first step calls `agent_ops` with each of `tasks`, and whose second calls it once more; an ops agent that answers at once. */
function agents(tasks: string[]) {
  const seen: Output[][] = [];
  const lead: AgentConfig = {
    name: 'lead',
    agents: ['ops'],
    model: scriptedModel(({ messages, stepIndex }) => {
      if (stepIndex === 0) return { toolCalls: tasks.map((task) => ({ toolName: 'agent_ops', input: { task } })) };
      seen.push(toolOutputs(messages));
      if (stepIndex === 1) return { toolCalls: [{ toolName: 'agent_ops', input: { task: 'One more.' } }] };
      return { text: 'Done.' };
    }),
  };
  const ops: AgentConfig = {
    name: 'ops',
    description: 'Does one small task.',
    model: scriptedModel(() => ({ text: 'Did it.' })),
  };
  return { list: [lead, ops], seen };
}

async function run(server: TestServer) {
  const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'lead' } })).body;
  const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
    token: 'ada',
    body: { content: 'Go.' },
  });
  const read = (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body;
  return { id: id as string, sent, read };
}

describe('limits on the children a turn starts', () => {
  it('fifty agent_ops calls in one step start limits.childrenPerTurn children (8); the rest, and a later step, are tool errors', async () => {
    const made = agents(Array.from({ length: 50 }, (_, index) => `Task ${index}.`));
    const server = await startServer({ agents: made.list });
    servers.push(server);
    const { sent, read } = await run(server);
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('completed');
    expect(sent.body.warnings).toEqual([
      expect.objectContaining({ code: 'child_limit_reached', details: { limit: 8 } }),
    ]);

    const children = read.conversation.children as Array<{ agent: string; status: string }>;
    expect(children).toHaveLength(8);
    expect(children.every((child) => child.agent === 'ops' && child.status === 'idle')).toBe(true);

    // What the lead's model read: eight replies, then forty-two refusals it can act on.
    const [first, second] = made.seen;
    expect(first).toHaveLength(50);
    expect(first.slice(0, 8)).toEqual(Array(8).fill({ type: 'text', value: 'Did it.' }));
    for (const output of first.slice(8)) {
      expect(output.type).toBe('error-text');
      expect(output.value).toContain('agent_ops was not started');
      expect(output.value).toContain('limits.childrenPerTurn');
    }
    // The limit is the turn's: a later step of the same turn starts nothing more.
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({ type: 'error-text' });
    expect(String(second[0]?.value)).toContain('limits.childrenPerTurn');

    // Each refused call's message keeps the warning, so a reload says why it did not run.
    const refused = (
      read.messages as Array<{ role: string; metadata?: { warnings?: Array<{ code: string }> } }>
    ).filter((message) => message.metadata?.warnings?.[0]?.code === 'child_limit_reached');
    expect(refused).toHaveLength(43);
  });

  it('limits.childrenPerTurn: 0 starts no child at all', async () => {
    const made = agents(['Only this.']);
    const server = await startServer({ agents: made.list, limits: { childrenPerTurn: 0 } });
    servers.push(server);
    const { read } = await run(server);
    expect(read.conversation.status).toBe('idle');
    expect(read.conversation.children).toBeUndefined();
    expect(made.seen[0]).toEqual([expect.objectContaining({ type: 'error-text' })]);
    expect(String(made.seen[0]?.[0]?.value)).toContain('limits.childrenPerTurn (0)');
  });

  it('a task of a megabyte starts no child: a tool error the model reads, the rule of a message', async () => {
    const made = agents(['x'.repeat(1024 * 1024)]);
    const server = await startServer({ agents: made.list, limits: { childrenPerTurn: 1 } });
    servers.push(server);
    const { sent, read } = await run(server);
    expect(sent.body.status).toBe('completed');
    expect(sent.body.warnings).toEqual([
      expect.objectContaining({ code: 'task_too_long', details: { characters: 1024 * 1024 } }),
    ]);
    const [first, second] = made.seen;
    expect(first).toEqual([
      {
        type: 'error-text',
        value: 'agent_ops was not started: A message may hold at most 100000 characters. Give it a shorter task.',
      },
    ]);
    // The refused task took nothing from the turn's budget of one: the next call starts its child.
    expect(second).toEqual([{ type: 'text', value: 'Did it.' }]);
    expect(read.conversation.children).toEqual([expect.objectContaining({ agent: 'ops', status: 'idle' })]);
  });
});
