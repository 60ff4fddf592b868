import assert from 'node:assert';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { tool, type AgentConfig } from 'heed';
import { scriptedModel, type ScriptedVersion } from 'heed/testing';
import { lastToolResult, testHeed } from '../../../test/kit.js';
import { describeEachSpec } from '../../../test/spec-versions.js';

const seatsAndColor = [
  {
    header: 'Color',
    prompt: 'Which color?',
    options: [
      { value: 'r', label: 'Red' },
      { value: 'b', label: 'Blue' },
    ],
    defaults: ['b'],
  },
  {
    id: 'seats',
    header: 'Seats',
    prompt: 'How many seats?',
    input: { type: 'number' as const, min: 1, max: 9, required: true },
    defaults: ['2'],
  },
];

function askingAgentOn(spec: ScriptedVersion, questions: unknown, extra: Partial<AgentConfig> = {}) {
  const model = scriptedModel(
    ({ stepIndex }) =>
      stepIndex === 0
        ? { toolCalls: [{ toolName: 'ask', input: { preamble: 'Two things first.', questions } }] }
        : { text: 'Booked.' },
    { specificationVersion: spec },
  );
  return { model, agent: { name: 'planner', model, ask: true, ...extra } satisfies AgentConfig };
}

describeEachSpec('the ask tool', (spec) => {
  const askingAgent = (questions: unknown, extra: Partial<AgentConfig> = {}) => askingAgentOn(spec, questions, extra);

  it('pauses on a question action and the model reads the answers by label', async () => {
    const { model, agent } = askingAgent(seatsAndColor);
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'planner' });
    const chat = heed.conversation(id);
    const paused = await chat.send('book it');
    expect(paused.status).toBe('requires_action');
    const action = paused.pendingActions![0];
    expect(action).toMatchObject({ kind: 'question', preamble: 'Two things first.' });
    assert(action.kind === 'question');
    expect(action.questions.map((question) => question.id)).toEqual(['Color', 'seats']);
    expect(model.calls[0].tools).toContain('ask');

    const done = await chat.resolve(action.id, { type: 'question', answers: { Color: 'Red', seats: ' 3 ' } });
    expect(done.status).toBe('completed');
    expect(lastToolResult(model.calls[1].messages as never)).toEqual({
      type: 'text',
      value: 'The user answered:\nWhich color? → Red\nHow many seats? → 3',
    });
    const settled = (await chat.actions())[0];
    expect(settled.resolution).toEqual({ type: 'question', answers: { Color: ['r'], seats: ['3'] } });
    expect(settled).toMatchObject({ defaulted: [] });
    await heed.close();
  });

  it('fills left-out questions with their defaults on the server and records which', async () => {
    const { agent } = askingAgent(seatsAndColor);
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'planner' });
    const chat = heed.conversation(id);
    const paused = await chat.send('book it');
    await chat.resolve(paused.pendingActions![0].id, { type: 'question', answers: { seats: 4 } });
    const settled = (await chat.actions())[0];
    expect(settled.resolution).toEqual({ type: 'question', answers: { Color: ['b'], seats: ['4'] } });
    expect(settled).toMatchObject({ defaulted: ['Color'] });
    await heed.close();
  });

  it('refuses a bad answer with a readable sentence per field and keeps the action pending', async () => {
    const { agent } = askingAgent(seatsAndColor);
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'planner' });
    const chat = heed.conversation(id);
    const paused = await chat.send('book it');
    const actionId = paused.pendingActions![0].id;
    const error = await chat
      .resolve(actionId, { type: 'question', answers: { seats: '12', Color: ['Red', 'Blue'] } })
      .catch((thrown) => thrown);
    expect(error).toMatchObject({ code: 'invalid_resolution', status: 400 });
    expect(error.message).toContain('"Seats" must be at most 9.');
    const fields = (error.details.fields as Array<{ field: string }>).map((entry) => entry.field).sort();
    expect(fields).toEqual(['answers.Color', 'answers.seats']);
    expect((await chat.pendingActions()).map((action) => action.id)).toEqual([actionId]);
    await heed.close();
  });

  it('skip carries on with the defaults; the model is told', async () => {
    const { model, agent } = askingAgent(seatsAndColor);
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'planner' });
    const chat = heed.conversation(id);
    await chat.send('book it');
    const [pending] = await chat.pendingActions();
    const done = await pending.skip();
    expect(done.status).toBe('completed');
    const result = lastToolResult(model.calls[1].messages as never) as { value: string };
    expect(result.value).toMatch(/^The user skipped these questions/);
    expect(result.value).toContain('Which color? → Blue');
    expect((await chat.events()).find((event) => event.type === 'action.resolved')!.data.status).toBe('skipped');
    await heed.close();
  });

  it('dismiss records a tool error and ends the turn without calling the model again', async () => {
    const { model, agent } = askingAgent(seatsAndColor);
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'planner' });
    const chat = heed.conversation(id);
    await chat.send('book it');
    const [pending] = await chat.pendingActions();
    const done = await pending.dismiss();
    expect(done.status).toBe('completed');
    expect(model.calls).toHaveLength(1);
    const tool = (await chat.get()).messages.find((message) => message.role === 'tool')!;
    expect(tool.parts[0]).toMatchObject({
      type: 'tool-result',
      output: { type: 'error-text', value: 'Dismissed by the user.' },
    });
    await heed.close();
  });

  it('a malformed call goes back to the model as a tool error and parks nobody', async () => {
    const six = Array.from({ length: 6 }, (_, index) => ({
      header: `Q${index}`,
      prompt: 'Which?',
      options: [{ label: 'A' }, { label: 'B' }],
      defaults: ['A'],
    }));
    const calls: unknown[] = [six, [{ header: 'Color', prompt: 'Which?', options: [{ label: 'Red' }] }]];
    const model = scriptedModel(
      ({ stepIndex }) =>
        stepIndex < 2
          ? { toolCalls: [{ toolName: 'ask', input: { questions: calls[stepIndex] } }] }
          : { text: 'I will assume.' },
      {
        specificationVersion: spec,
      },
    );
    const heed = testHeed([{ name: 'planner', model, ask: true }]);
    const { id } = await heed.createConversation({ agent: 'planner' });
    const result = await heed.conversation(id).send('go');
    expect(result.status).toBe('completed');
    expect(await heed.conversation(id).pendingActions()).toEqual([]);
    const first = lastToolResult(model.calls[1].messages as never) as { type: string; value: string };
    expect(first.type).toBe('error-text');
    expect(first.value).toMatch(/at most 5/);
    const second = lastToolResult(model.calls[2].messages as never) as { type: string; value: string };
    expect(second.value).toMatch(/default/i);
    await heed.close();
  });

  it('is withheld from non-interactive calls: a call to it is a tool error and the turn goes on', async () => {
    const { model, agent } = askingAgent(seatsAndColor);
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'planner' });
    const result = await heed.conversation(id).send('book it', { interactive: false });
    expect(model.calls[0].tools).not.toContain('ask');
    expect(result.status).toBe('completed');
    expect((lastToolResult(model.calls[1].messages as never) as { type: string }).type).toBe('error-text');
    await heed.close();
  });
});

describeEachSpec('intake', (spec) => {
  const intake = {
    preamble: 'Three questions before I start.',
    questions: [
      {
        id: 'scope',
        header: 'Scope',
        prompt: 'How much should I cover?',
        options: [
          { value: 'file', label: 'This file', hotkey: 'a' },
          { value: 'module', label: 'The whole module', hotkey: 'b' },
        ],
        defaults: ['module'],
      },
      {
        id: 'tests',
        header: 'Tests',
        prompt: 'Which tests?',
        multiple: true,
        options: [
          { value: 'unit', label: 'Unit' },
          { value: 'e2e', label: 'End to end' },
        ],
        defaults: ['unit'],
      },
      {
        id: 'email',
        header: 'Contact',
        prompt: 'Who should we email?',
        input: { type: 'email' as const, required: true },
      },
    ],
  };

  it('asks before the model is called, once per thread, and never lapses by default', async () => {
    const model = scriptedModel(() => ({ text: 'On it.' }), { specificationVersion: spec });
    const heed = testHeed([{ name: 'refactorer', model, intake }]);
    const { id } = await heed.createConversation({ agent: 'refactorer' });
    const chat = heed.conversation(id);
    const paused = await chat.send('refactor this');
    expect(paused.status).toBe('requires_action');
    expect(model.calls).toHaveLength(0);
    const action = paused.pendingActions![0];
    assert(action.kind === 'question');
    expect(action.questions).toHaveLength(3);
    expect(action.expiresAt).toBeUndefined();

    await expect(chat.resolve(action.id, { type: 'question', answers: {} })).rejects.toMatchObject({
      code: 'invalid_resolution',
    });
    const done = await chat.resolve(action.id, {
      type: 'question',
      answers: { email: 'ada@example.com', tests: ['Unit', 'e2e'] },
    });
    expect(done.status).toBe('completed');
    expect(model.calls).toHaveLength(1);
    expect(lastToolResult(model.calls[0].messages as never)).toEqual({
      type: 'text',
      value:
        'The user answered:\nHow much should I cover? → The whole module\nWhich tests? → Unit, End to end\nWho should we email? → ada@example.com',
    });
    expect((await chat.actions())[0]).toMatchObject({ defaulted: ['scope'] });

    const second = await chat.send('and the next file');
    expect(second.status).toBe('completed');
    await heed.close();
  });

  it('every-turn asks before each turn', async () => {
    const model = scriptedModel(() => ({ text: 'On it.' }), { specificationVersion: spec });
    const heed = testHeed([
      { name: 'refactorer', model, intake: { ...intake, when: 'every-turn', questions: intake.questions.slice(0, 1) } },
    ]);
    const { id } = await heed.createConversation({ agent: 'refactorer' });
    const chat = heed.conversation(id);
    const first = await chat.send('one');
    await chat.resolve(first.pendingActions![0].id, { type: 'question' });
    const second = await chat.send('two');
    expect(second.status).toBe('requires_action');
    await heed.close();
  });
});

describeEachSpec("a tool's own ctx.ask", (spec) => {
  it('pauses mid-tool; on resume the tool re-runs and reads the journaled answers in call order', async () => {
    const seen: string[] = [];
    const model = scriptedModel(
      ({ stepIndex }) =>
        stepIndex === 0 ? { toolCalls: [{ toolName: 'deploy', input: { service: 'api' } }] } : { text: 'Deployed.' },
      {
        specificationVersion: spec,
      },
    );
    const heed = testHeed([
      {
        name: 'ops',
        model,
        tools: {
          deploy: tool({
            inputSchema: z.object({ service: z.string() }),
            execute: async ({ service }, ctx) => {
              seen.push('start');
              const env = await ctx.ask({
                questions: [
                  {
                    header: 'Environment',
                    prompt: `Where should ${service} go?`,
                    options: [
                      { value: 'stg', label: 'Staging' },
                      { value: 'prod', label: 'Production' },
                    ],
                  },
                ],
              });
              seen.push(`env=${String(env.answers.Environment)}`);
              const ok = await ctx.approve({ title: `Deploy ${service} to ${String(env.answers.Environment)}?` });
              seen.push(`approved=${ok.approved}`);
              return { deployed: ok.approved, env: env.answers.Environment };
            },
          }),
        },
      },
    ]);
    const { id } = await heed.createConversation({ agent: 'ops' });
    const chat = heed.conversation(id);
    const first = await chat.send('deploy the api');
    expect(first.status).toBe('requires_action');
    expect(first.pendingActions![0]).toMatchObject({ kind: 'question', toolName: 'deploy' });

    const second = await chat.resolve(first.pendingActions![0].id, {
      type: 'question',
      answers: { Environment: 'Production' },
    });
    expect(second.status).toBe('requires_action');
    expect(second.pendingActions![0]).toMatchObject({ kind: 'approval', title: 'Deploy api to prod?' });

    const third = await chat.resolve(second.pendingActions![0].id, { type: 'approval', decision: 'allow' });
    expect(third.status).toBe('completed');
    expect(seen).toEqual(['start', 'start', 'env=prod', 'start', 'env=prod', 'approved=true']);
    expect(lastToolResult(model.calls[1].messages as never)).toEqual({
      type: 'json',
      value: { deployed: true, env: 'prod' },
    });
    await heed.close();
  });
});
