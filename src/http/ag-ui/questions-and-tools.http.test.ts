/**
 * AG-UI questions, URL requests and client tools with the real `@ag-ui/client` HttpAgent over loopback:
 * a question set and a URL request are `input_required` interrupts answered with the kind's answer; a
 * client tool is a `tool_call` interrupt, or, when the run offers the tool itself, a frontend tool call
 * the client answers with a `role: 'tool'` message.
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aguiAgent, expectWellFormed, run, say, streamedCalls, streamedText } from '../../../test/ag-ui-fixtures.js';
import { startServer, supportAgent, type TestServer } from '../../../test/http-fixtures.js';
import { scriptedModel } from '../../testing/scripted-model.js';

let server: TestServer;
beforeAll(async () => {
  const ran = new Map<string, number>();
  const intake = {
    name: 'intake',
    model: scriptedModel(() => ({ text: 'Thanks.' })),
    intake: {
      preamble: 'Before we start:',
      questions: [
        {
          header: 'Team',
          prompt: 'Which team are you on?',
          options: [{ value: 'web', label: 'Web' }],
          defaults: ['web'],
        },
      ],
    },
  };
  server = await startServer({ agents: [supportAgent(ran), intake] });
  server.ran = ran;
});
afterAll(async () => {
  await server.close();
});

const pageTool = {
  name: 'get_selection',
  description: 'The text selected on the page.',
  parameters: { type: 'object' },
};

describe('AG-UI questions and client tools', () => {
  it('a question set is an input_required interrupt answered with `{ answers }`', async () => {
    const agent = aguiAgent(server, { token: 'ada' });
    const first = await say(agent, 'ask me');
    expectWellFormed(first);
    const [interrupt] = first.interrupts;
    expect(interrupt).toMatchObject({ reason: 'input_required', message: expect.any(String) });
    expect(streamedCalls(first).get(interrupt.toolCallId!)?.name).toBe('ask');
    const schema = JSON.stringify(interrupt.responseSchema);
    expect(schema).toContain('answers');
    expect(schema).toContain('dismiss');

    // The form is drawn from the interrupt alone: every question, its options and its input's bounds.
    type Drawn = { id: string; options?: Array<{ value: string }>; input?: { type: string; min?: number } };
    const asked = (interrupt.metadata as { heed: { action: { questions: Drawn[] } } }).heed.action.questions;
    expect(asked.map((question) => question.id)).toEqual(['size', 'qty']);
    const answers = Object.fromEntries(
      asked.map((question) => [
        question.id,
        question.options ? question.options.at(-1)!.value : (question.input?.min ?? 0) + 2,
      ]),
    );
    expect(answers).toEqual({ size: 'l', qty: 3 });
    // The interrupt's responseSchema is this action's: it takes these answers and refuses what the form would.
    const check = new Validator(interrupt.responseSchema as Schema, '2020-12');
    expect(check.validate({ answers }).valid).toBe(true);
    expect(check.validate({ answers: { ...answers, qty: 99 } }).valid).toBe(false);
    expect(check.validate({ answers: { ...answers, colour: 'red' } }).valid).toBe(false);
    expect(check.validate({ dismiss: true, note: 'Not now.' }).valid).toBe(true);
    const second = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { answers } }],
    });
    expectWellFormed(second);
    expect(second.error).toBeUndefined();
    expect(second.finished?.outcome).toEqual({ type: 'success' });
    expect(streamedText(second)).toBe('Done.');
    const actions = await server.api('GET', `/api/conversations/${agent.threadId}/actions`, { token: 'ada' });
    expect(actions.body.actions[0].resolution).toMatchObject({
      type: 'question',
      answers: { size: ['l'], qty: ['3'] },
    });
  });

  it("an agent's intake questions, asked with no tool call, come with a call the interrupt names", async () => {
    const agent = aguiAgent(server, { agent: 'intake', token: 'ada' });
    const first = await say(agent, 'hello');
    expectWellFormed(first);
    const [interrupt] = first.interrupts;
    expect(interrupt).toMatchObject({ reason: 'input_required', message: 'Which team are you on?' });
    expect(streamedCalls(first).has(interrupt.toolCallId!)).toBe(true);
    const snapshot = first.events.find((event) => event.type === 'MESSAGES_SNAPSHOT') as unknown as {
      messages: Array<{ toolCalls?: Array<{ id: string }> }>;
    };
    expect(snapshot.messages.flatMap((message) => message.toolCalls ?? []).map((call) => call.id)).toContain(
      interrupt.toolCallId,
    );
    const second = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { answers: { Team: 'web' } } }],
    });
    expectWellFormed(second);
    expect(second.error).toBeUndefined();
    expect(streamedText(second)).toBe('Thanks.');
  });

  it('a URL request is an input_required interrupt answered with its decision', async () => {
    const agent = aguiAgent(server, { token: 'ada' });
    const before = server.ran.get('connect') ?? 0;
    const first = await say(agent, 'link my account');
    const [interrupt] = first.interrupts;
    expect(interrupt).toMatchObject({ reason: 'input_required', message: 'Connect your account' });
    const second = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { decision: 'accept' } }],
    });
    expectWellFormed(second);
    expect(second.finished?.outcome).toEqual({ type: 'success' });
    expect(server.ran.get('connect')).toBe(before + 1);
  });

  it('a client tool the run does not offer is a tool_call interrupt answered with `{ output }`', async () => {
    const agent = aguiAgent(server, { token: 'adaPage' });
    const first = await say(agent, 'read the page');
    const [interrupt] = first.interrupts;
    expect(interrupt).toMatchObject({ reason: 'tool_call' });
    expect(streamedCalls(first).get(interrupt.toolCallId!)).toEqual({
      name: 'get_selection',
      args: JSON.stringify({ purpose: 'test' }),
    });
    const second = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { output: { text: 'hello' } } }],
    });
    expectWellFormed(second);
    expect(second.events).toContainEqual(
      expect.objectContaining({
        type: 'TOOL_CALL_RESULT',
        toolCallId: interrupt.toolCallId,
        content: '{"text":"hello"}',
      }),
    );
    expect(streamedText(second)).toBe('Done.');
  });

  it('a client tool the run offers is left to the client, which answers it with a tool message', async () => {
    const agent = aguiAgent(server, { token: 'adaPage' });
    const first = await say(agent, 'read the page', { tools: [pageTool] });
    expectWellFormed(first);
    expect(first.interrupts).toEqual([]);
    const [call] = [...streamedCalls(first).keys()];
    expect(first.finished?.outcome).toEqual({ type: 'success', pendingToolCallIds: [call] });

    agent.addMessage({ id: 'tool-answer-1', role: 'tool', toolCallId: call, content: JSON.stringify({ text: 'hi' }) });
    const second = await run(agent, { tools: [pageTool] });
    expectWellFormed(second);
    expect(second.error).toBeUndefined();
    expect(streamedText(second)).toBe('Done.');
    expect(second.finished?.outcome).toEqual({ type: 'success' });
    const messages = await server.api('GET', `/api/conversations/${agent.threadId}`, { token: 'adaPage' });
    const result = messages.body.messages
      .flatMap((message: { parts: Array<{ type: string; output?: unknown }> }) => message.parts)
      .find((part: { type: string }) => part.type === 'tool-result');
    expect(result.output).toEqual({ type: 'json', value: { text: 'hi' } });
  });

  it('a caller the client tool does not allow is refused, and the call still waits', async () => {
    const agent = aguiAgent(server, { token: 'ada' });
    const first = await say(agent, 'read the page');
    const [interrupt] = first.interrupts;
    const second = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { output: { text: 'x' } } }],
    });
    expectWellFormed(second);
    expect(second.error).toMatchObject({ code: 'action_forbidden', message: expect.stringMatching(/\w+ \w+/) });
    const actions = await server.api('GET', `/api/conversations/${agent.threadId}/actions`, { token: 'ada' });
    expect(actions.body.actions[0]).toMatchObject({ id: interrupt.id, status: 'pending' });
  });
});
