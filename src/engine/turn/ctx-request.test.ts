import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHeed } from '../../heed.js';
import { scriptedModel } from '../../testing/scripted-model.js';
import { tool } from '../../tool.js';

/** An agent whose one tool asks with `ctx.request` for whatever request the user's message holds (as JSON). */
function agentAsking(runs: unknown[]) {
  const model = scriptedModel(({ messages }) => {
    const last = messages.at(-1)!;
    if (last.role === 'tool') return { text: 'Done.' };
    const text = last.role === 'user' && last.content[0].type === 'text' ? last.content[0].text : '{}';
    return { toolCalls: [{ toolName: 'ask', input: { request: JSON.parse(text) } }] };
  });
  return createHeed({
    sweepIntervalMs: 0,
    agents: [
      {
        name: 'a',
        model,
        tools: {
          ask: tool({
            inputSchema: z.object({ request: z.any() }),
            execute: async ({ request }, ctx) => {
              const answer = await ctx.request(request);
              runs.push(answer);
              return answer;
            },
          }),
        },
      },
    ],
  });
}

describe('ctx.request: a tool asks for an action of any kind by its request', () => {
  it('pauses like ctx.openUrl, and the tool runs again with how the request was settled', async () => {
    const runs: unknown[] = [];
    const heed = agentAsking(runs);
    const { id } = await heed.createConversation({ agent: 'a' });
    const chat = heed.conversation(id);
    const paused = await chat.send(
      JSON.stringify({ kind: 'url', url: 'https://example.com/connect', title: 'Connect your calendar' }),
    );
    expect(paused.status).toBe('requires_action');
    const [action] = await chat.pendingActions();
    expect(action).toMatchObject({
      kind: 'url',
      url: 'https://example.com/connect',
      title: 'Connect your calendar',
      status: 'pending',
    });
    expect(runs).toEqual([]);

    const result = await chat.resolve(action.id, { type: 'url', decision: 'accept' });
    expect(result.status).toBe('completed');
    expect(runs).toEqual([{ status: 'resolved', resolution: { type: 'url', decision: 'accept' }, defaulted: [] }]);
    const toolResult = result.messages.find((message) => message.role === 'tool')!.parts[0];
    expect(toolResult).toMatchObject({
      output: { type: 'json', value: { status: 'resolved', resolution: { type: 'url', decision: 'accept' } } },
    });
    await heed.close();
  });

  it("checks the request by its kind's rules: a malformed one fails the call with an error the model reads, and nothing is parked", async () => {
    const heed = agentAsking([]);
    for (const [request, reason] of [
      [{ kind: 'url', url: 'javascript:alert(1)' }, 'Only http and https addresses'],
      [{ kind: 'question', questions: [{ header: 'x'.repeat(40), prompt: 'Which?' }] }, 'malformed questions'],
      // A client tool is raised only by a call to one; its answer (the page's output) is never kept, so a tool could not read it.
      [{ kind: 'client_tool', args: {}, clientKind: 'page' }, 'cannot ask for a "client_tool" action'],
      [{ kind: 'nonsense' }, 'cannot ask for a "nonsense" action'],
    ] as const) {
      const { id } = await heed.createConversation({ agent: 'a' });
      const result = await heed.conversation(id).send(JSON.stringify(request));
      expect([request.kind, result.status, await heed.conversation(id).actions()]).toEqual([
        request.kind,
        'completed',
        [],
      ]);
      const toolResult = result.messages.find((message) => message.role === 'tool')!.parts[0];
      expect(toolResult).toMatchObject({ output: { type: 'error-text', value: expect.stringContaining(reason) } });
    }
    await heed.close();
  });
});
