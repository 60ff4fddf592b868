/**
 * AG-UI tool approvals with the real `@ag-ui/client` HttpAgent over loopback: a pause ends the run with an
 * interrupt per pending approval, and a resume settles it and streams the continuation, where the tool runs once.
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aguiAgent, expectWellFormed, run, say, streamedCalls, streamedText } from '../../../test/ag-ui-fixtures.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

const ran = () => server.ran.get('issue_refund') ?? 0;

describe('AG-UI tool approval', () => {
  it('ends the run with an interrupt for the streamed call, and a resume runs the tool once', async () => {
    const agent = aguiAgent(server, { token: 'ada' });
    const before = ran();
    const first = await say(agent, 'Please refund order 42');
    expectWellFormed(first);
    expect(first.thrown).toBeUndefined();
    expect(first.types).toEqual([
      'RUN_STARTED',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'STATE_SNAPSHOT',
      'MESSAGES_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    expect(first.interrupts).toHaveLength(1);
    const [interrupt] = first.interrupts;
    // The interrupt is the action the console shows, for the call the client was streamed.
    const actions = await server.api('GET', `/api/conversations/${agent.threadId}/actions`, { token: 'ada' });
    expect(actions.body.actions).toEqual([expect.objectContaining({ id: interrupt.id, status: 'pending' })]);
    expect(streamedCalls(first).get(interrupt.toolCallId!)).toEqual({
      name: 'issue_refund',
      args: JSON.stringify({ orderId: 42, amount: 5 }),
    });
    expect(interrupt).toMatchObject({
      reason: 'tool_call',
      message: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(JSON.stringify(interrupt.responseSchema)).toContain('editedArgs');
    // The edits this approval takes are its tool's arguments: the schema says so, bounds and all.
    const check = new Validator(interrupt.responseSchema as Schema, '2020-12');
    expect(check.validate({ approved: true, editedArgs: { orderId: 42, amount: 50 } }).valid).toBe(true);
    expect(check.validate({ approved: true, editedArgs: { orderId: 42, amount: 900 } }).valid).toBe(false);
    expect(check.validate({ decision: 'allow', approvedArgs: { orderId: 'x', amount: 5 } }).valid).toBe(false);
    expect(check.validate({ decision: 'maybe' }).valid).toBe(false);
    expect(agent.pendingInterrupts.map((entry) => entry.id)).toEqual([interrupt.id]);
    expect(ran()).toBe(before);

    const second = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
    });
    expectWellFormed(second);
    // The call is not streamed again: its result is, against the same id, then the reply.
    expect(second.types.filter((type) => type.startsWith('TOOL_CALL'))).toEqual(['TOOL_CALL_RESULT']);
    expect(second.events).toContainEqual(
      expect.objectContaining({
        type: 'TOOL_CALL_RESULT',
        toolCallId: interrupt.toolCallId,
        content: '{"refunded":5}',
      }),
    );
    expect(streamedText(second)).toBe('Done.');
    expect(second.finished?.outcome).toEqual({ type: 'success' });
    expect(ran()).toBe(before + 1);
    expect(agent.pendingInterrupts).toEqual([]);
    // The snapshot is Heed's conversation, in its order.
    const snapshot = second.events.find((event) => event.type === 'MESSAGES_SNAPSHOT') as unknown as {
      messages: Array<{ role: string }>;
    };
    expect(snapshot.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('approves with edits: the tool runs with the edited arguments', async () => {
    const agent = aguiAgent(server, { token: 'ada' });
    const first = await say(agent, 'refund please');
    const second = await run(agent, {
      resume: [
        {
          interruptId: first.interrupts[0].id,
          status: 'resolved',
          payload: { approved: true, editedArgs: { orderId: 42, amount: 3 } },
        },
      ],
    });
    expect(second.events).toContainEqual(
      expect.objectContaining({ type: 'TOOL_CALL_RESULT', content: '{"refunded":3}' }),
    );
  });

  it("takes the HTTP API's answer without its type, and `cancelled` denies: the tool does not run", async () => {
    const agent = aguiAgent(server, { token: 'ada' });
    const first = await say(agent, 'refund twice');
    expect(first.interrupts).toHaveLength(2);
    const before = ran();
    const second = await run(agent, {
      resume: [
        { interruptId: first.interrupts[0].id, status: 'resolved', payload: { decision: 'allow', comment: 'ok' } },
        { interruptId: first.interrupts[1].id, status: 'cancelled' },
      ],
    });
    expectWellFormed(second);
    expect(second.error).toBeUndefined();
    expect(ran()).toBe(before + 1);
    const actions = await server.api('GET', `/api/conversations/${agent.threadId}/actions`, { token: 'ada' });
    const decisions = Object.fromEntries(
      actions.body.actions.map((action: { id: string; resolution: { decision: string } }) => [
        action.id,
        action.resolution.decision,
      ]),
    );
    expect(decisions).toEqual({ [first.interrupts[0].id]: 'allow', [first.interrupts[1].id]: 'deny' });
  });

  it('advertises human in the loop as AG-UI names it', async () => {
    const response = await server.api('GET', '/api/ag-ui/support/capabilities', { token: 'ada' });
    expect(response.status).toBe(200);
    expect(response.body.humanInTheLoop).toEqual({
      supported: true,
      approvals: true,
      interrupts: true,
      approveWithEdits: true,
    });
    // Tools offered by a run are answered when the agent declares them, but not given to the model: not claimed.
    expect(response.body.tools).toEqual({ supported: true, clientProvided: false });
    expect((await server.api('GET', '/api/ag-ui/nobody/capabilities', { token: 'ada' })).status).toBe(404);
  });
});
