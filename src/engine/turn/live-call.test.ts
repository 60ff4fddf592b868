import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHeed, memoryStore, tool, type AgentConfig } from 'heed';
import { scriptedModel } from 'heed/testing';
import { lastToolResult } from '../../../test/kit.js';
import { engineOf } from '../../heed.js';

function connectorAgent(log: string[]): AgentConfig {
  return {
    name: 'connector',
    model: scriptedModel(({ stepIndex }) =>
      stepIndex === 0 ? { toolCalls: [{ toolName: 'connect', input: {} }] } : { text: 'Connected.' },
    ),
    tools: {
      connect: tool({
        inputSchema: z.object({}),
        execute: async (_input, ctx) => {
          log.push('start');
          const form = await ctx.askLive({
            kind: 'question',
            questions: [{ header: 'Email', prompt: 'Which email?', input: { type: 'email', required: true } }],
          });
          log.push(`form ${form.status}`);
          const page = await ctx.askLive({ kind: 'url', url: 'https://example.com/oauth' });
          log.push(`page ${page.status}`);
          return { form: form.resolution, page: page.resolution };
        },
      }),
    },
  };
}

describe('ctx.askLive', () => {
  it('keeps the tool running across the pause and hands it each answer, without re-running it', async () => {
    const log: string[] = [];
    const agent = connectorAgent(log);
    const heed = createHeed({ agents: [agent], sweepIntervalMs: 0 });
    const { id } = await heed.createConversation({ agent: 'connector' });
    const chat = heed.conversation(id);
    const first = await chat.send('connect me');
    expect(first.pendingActions![0]).toMatchObject({ kind: 'question', toolName: 'connect' });
    const second = await chat.resolve(first.pendingActions![0].id, {
      type: 'question',
      answers: { Email: 'ada@example.com' },
    });
    expect(second.pendingActions![0]).toMatchObject({ kind: 'url', url: 'https://example.com/oauth' });
    const done = await chat.resolve(second.pendingActions![0].id, { type: 'url', decision: 'accept' });
    expect(done.status).toBe('completed');
    expect(log).toEqual(['start', 'form resolved', 'page resolved']);
    const model = agent.model as ReturnType<typeof scriptedModel>;
    expect(lastToolResult(model.calls[1].messages as never)).toEqual({
      type: 'json',
      value: {
        form: { type: 'question', answers: { Email: ['ada@example.com'] } },
        page: { type: 'url', decision: 'accept' },
      },
    });
    await heed.close();
  });

  it('fails the call with an error the model reads when the process restarted while it waited', async () => {
    const store = memoryStore();
    const before = createHeed({ agents: [connectorAgent([])], store, sweepIntervalMs: 0 });
    const { id } = await before.createConversation({ agent: 'connector' });
    const paused = await before.conversation(id).send('connect me');

    const after = createHeed({ agents: [connectorAgent([])], store, sweepIntervalMs: 0 });
    const done = await after
      .conversation(id)
      .resolve(paused.pendingActions![0].id, { type: 'question', answers: { Email: 'ada@example.com' } });
    expect(done.status).toBe('completed');
    const tool = done.messages.find((message) => message.role === 'tool')!;
    expect(tool.parts[0]).toMatchObject({ output: { type: 'error-text' } });
    expect(JSON.stringify(tool.parts[0])).toContain('server restarted');
    await before.close();
    await after.close();
  });

  it('a cancel releases the waiting tool', async () => {
    const log: string[] = [];
    const heed = createHeed({ agents: [connectorAgent(log)], sweepIntervalMs: 0 });
    const { id } = await heed.createConversation({ agent: 'connector' });
    await heed.conversation(id).send('connect me');
    await heed.conversation(id).cancel();
    // The waiting tool hears of it.
    await expect.poll(() => log).toEqual(['start', 'form cancelled']);
    expect(engineOf(heed).liveCalls.size).toBe(0);
    await heed.close();
  });
});
