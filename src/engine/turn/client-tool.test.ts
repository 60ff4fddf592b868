import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tool, type ClientToolCall } from 'heed';
import { scriptedModel, type ScriptedVersion } from 'heed/testing';
import { testHeed } from '../../../test/kit.js';
import { describeEachSpec } from '../../../test/spec-versions.js';

type PageOptions = { access?: (context: ClientToolCall<{ max: number }>) => boolean };

function pageAgentOn(spec: ScriptedVersion, options: PageOptions = {}) {
  const serverRuns: string[] = [];
  const model = scriptedModel(
    ({ stepIndex }) =>
      stepIndex === 0
        ? {
            toolCalls: [
              { toolName: 'get_selected_rows', input: { max: 2 } },
              { toolName: 'lookup', input: { q: 'x' } },
            ],
          }
        : { text: 'Thanks.' },
    { specificationVersion: spec },
  );
  const agent = {
    name: 'grid',
    model,
    tools: {
      get_selected_rows: tool({
        description: 'Read the rows the user selected.',
        inputSchema: z.object({ max: z.number().int() }),
        outputSchema: z.object({ rows: z.array(z.string()) }),
        client: {
          kind: 'grid',
          timeoutSeconds: 60,
          access: options.access,
          validate: ({ input, output }) => output.rows.length <= input.max || `At most ${input.max} rows.`,
        },
      }),
      lookup: tool({
        inputSchema: z.object({ q: z.string() }),
        execute: async ({ q }) => {
          serverRuns.push(q);
          return 'found';
        },
      }),
    },
  };
  return { agent, model, serverRuns };
}

describeEachSpec('client tools', (spec) => {
  const pageAgent = (options: PageOptions = {}) => pageAgentOn(spec, options);

  it('wait for the page; the output reaches the model but never the event log or the record', async () => {
    const { agent, model, serverRuns } = pageAgent();
    const heed = testHeed([agent], { now: () => new Date('2026-01-01T00:00:00Z') });
    const { id } = await heed.createConversation({ agent: 'grid' });
    const chat = heed.conversation(id);
    const paused = await chat.send('use my selection');
    const action = paused.pendingActions![0];
    expect(action).toMatchObject({
      kind: 'client_tool',
      toolName: 'get_selected_rows',
      clientKind: 'grid',
      args: { max: 2 },
      timeoutSeconds: 60,
    });
    expect(action.expiresAt).toBe('2026-01-01T00:01:30.000Z');

    // A server tool of the same step is skipped, not run.
    expect(serverRuns).toEqual([]);

    await expect(chat.resolve(action.id, { type: 'client_tool', output: { rows: 'nope' } })).rejects.toMatchObject({
      code: 'invalid_client_tool_result',
    });
    await expect(
      chat.resolve(action.id, { type: 'client_tool', output: { rows: ['a', 'b', 'c'] } }),
    ).rejects.toMatchObject({
      code: 'invalid_client_tool_result',
      message: 'At most 2 rows.',
    });
    await expect(
      chat.resolve(action.id, { type: 'client_tool', output: { rows: ['x'.repeat(70_000)] } }),
    ).rejects.toMatchObject({
      code: 'invalid_client_tool_result',
      details: { maxBytes: 65536 },
    });
    await expect(chat.resolve(action.id, { type: 'client_tool' })).rejects.toMatchObject({
      code: 'invalid_client_tool_result',
    });

    const secret = 'row-secret-7f3a';
    const done = await chat.resolve(action.id, { type: 'client_tool', output: { rows: [secret] } });
    expect(done.status).toBe('completed');
    const sent = model.calls[1].messages;
    const results = sent.at(-1)!.content as Array<{ toolName: string; output: { type: string; value: unknown } }>;
    expect(results.find((part) => part.toolName === 'get_selected_rows')!.output).toEqual({
      type: 'json',
      value: { rows: [secret] },
    });
    expect(results.find((part) => part.toolName === 'lookup')!.output.value).toMatch(/^Skipped/);

    const events = await chat.events();
    expect(JSON.stringify(events)).not.toContain(secret);
    const record = (await chat.actions())[0];
    expect(JSON.stringify(record)).not.toContain(secret);
    expect(record.resolution).toEqual({ type: 'client_tool', outputBytes: JSON.stringify({ rows: [secret] }).length });
    await heed.close();
  });

  it('an error from the page is what the model reads', async () => {
    const { agent, model } = pageAgent();
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'grid' });
    const chat = heed.conversation(id);
    const paused = await chat.send('use my selection');
    await chat.resolve(paused.pendingActions![0].id, { type: 'client_tool', error: 'No rows are selected.' });
    const results = model.calls[1].messages.at(-1)!.content as Array<{ toolName: string; output: unknown }>;
    expect(results.find((part) => part.toolName === 'get_selected_rows')!.output).toEqual({
      type: 'error-text',
      value: 'No rows are selected.',
    });
    await heed.close();
  });

  it('access adds its own check of who may answer', async () => {
    const { agent } = pageAgent({ access: ({ caller }) => caller?.userId === 'bob' });
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'grid' });
    const chat = heed.conversation(id);
    const paused = await chat.send('use my selection');
    const actionId = paused.pendingActions![0].id;
    await expect(
      chat.resolve(actionId, { type: 'client_tool', output: { rows: [] } }, { caller: { userId: 'eve' } }),
    ).rejects.toMatchObject({
      code: 'action_forbidden',
      status: 403,
    });
    const done = await chat.resolve(
      actionId,
      { type: 'client_tool', output: { rows: [] } },
      { caller: { userId: 'bob' } },
    );
    expect(done.status).toBe('completed');
    await heed.close();
  });

  it('access sees the call: its request, conversation, message, agent and time', async () => {
    const seen: ClientToolCall<{ max: number }>[] = [];
    const { agent } = pageAgent({ access: (call) => seen.push(call) > 0 });
    const heed = testHeed([agent], { now: () => new Date('2026-01-01T00:00:00Z') });
    const { id } = await heed.createConversation({ agent: 'grid' });
    const chat = heed.conversation(id);
    const paused = await chat.send('use my selection');
    const action = paused.pendingActions![0];
    await chat.resolve(action.id, { type: 'client_tool', output: { rows: [] } }, { caller: { userId: 'bob' } });
    expect(seen[0]).toMatchObject({
      caller: { userId: 'bob' },
      toolCallId: action.toolCallId,
      input: { max: 2 },
      request: { kind: 'client_tool', args: { max: 2 }, clientKind: 'grid' },
      conversationId: id,
      messageId: action.messageId,
      agent: 'grid',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    await heed.close();
  });
});

describe('url actions', () => {
  it('ask the person to open an http(s) address and refuse any other scheme', async () => {
    const decisions: string[] = [];
    const model = scriptedModel(({ stepIndex }) =>
      stepIndex === 0
        ? {
            toolCalls: [
              { toolName: 'connect', input: { url: 'https://accounts.example.com/connect?x=1' } },
              { toolName: 'connect', input: { url: 'javascript:alert(1)' } },
            ],
          }
        : { text: 'ok' },
    );
    const heed = testHeed([
      {
        name: 'links',
        model,
        tools: {
          connect: tool({
            inputSchema: z.object({ url: z.string() }),
            execute: async ({ url }, ctx) => {
              const decision = await ctx.openUrl({ url, title: 'Connect your account' });
              decisions.push(decision);
              return decision;
            },
          }),
        },
      },
    ]);
    const { id } = await heed.createConversation({ agent: 'links' });
    const chat = heed.conversation(id);
    const paused = await chat.send('connect');
    expect(paused.pendingActions).toHaveLength(1);
    expect(paused.pendingActions![0]).toMatchObject({
      kind: 'url',
      url: 'https://accounts.example.com/connect?x=1',
      title: 'Connect your account',
    });
    await chat.resolve(paused.pendingActions![0].id, { type: 'url', decision: 'accept' });
    expect(decisions).toEqual(['accept']);
    const results = model.calls[1].messages.at(-1)!.content as Array<{ output: { type: string; value: unknown } }>;
    expect(results.map((part) => part.output.type).sort()).toEqual(['error-text', 'json']);
    expect(JSON.stringify(results)).toContain('Only http and https');
    await heed.close();
  });
});
