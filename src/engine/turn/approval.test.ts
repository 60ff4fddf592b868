import { expect, it } from 'vitest';
import { HeedError } from 'heed';
import type { ScriptedVersion } from 'heed/testing';
import { lastToolResult, refundAgent, testHeed } from '../../../test/kit.js';
import { describeEachSpec } from '../../../test/spec-versions.js';

type RefundOptions = Parameters<typeof refundAgent>[0];

async function pausedRefundOn(spec: ScriptedVersion, options: RefundOptions = {}) {
  const kit = refundAgent({ ...options, specificationVersion: spec });
  const heed = testHeed([kit.agent]);
  const conversation = await heed.createConversation({ agent: 'support', ownerId: 'alice' });
  const chat = heed.conversation(conversation.id);
  const paused = await chat.send('refund order 42');
  return { ...kit, heed, chat, paused };
}

describeEachSpec('approval', (spec) => {
  const pausedRefund = (options: RefundOptions = {}) => pausedRefundOn(spec, options);

  it('pauses before a gated tool and runs it once after allow', async () => {
    const { heed, chat, paused, runs, model } = await pausedRefund();
    expect(paused.status).toBe('requires_action');
    expect(runs).toHaveLength(0);
    const [action] = paused.pendingActions!;
    expect(action).toMatchObject({
      kind: 'approval',
      toolName: 'issue_refund',
      args: { orderId: 42, amount: 5 },
      status: 'pending',
      title: 'Run issue_refund?',
    });
    expect(action).toMatchObject({ argsSchema: { type: 'object', required: ['orderId', 'amount'] } });
    expect((await chat.get()).runtime).toEqual({ status: 'requires_action', pendingActionIds: [action.id] });

    const [pending] = await chat.pendingActions();
    const done = await pending.approve();
    expect(done.status).toBe('completed');
    expect(runs).toEqual([{ orderId: 42, amount: 5, key: action.toolCallId }]);
    expect(lastToolResult(model.calls[1].messages as never)).toEqual({ type: 'json', value: { refunded: 5 } });

    const snapshot = await chat.get();
    expect(snapshot.pendingActions).toBeUndefined();
    const asked = snapshot.messages.find((message) => message.id === action.messageId)!;
    expect(asked.metadata?.requiresAction).toBe(false);
    expect(asked.metadata?.actions?.[0]).toMatchObject({
      status: 'resolved',
      resolution: { type: 'approval', decision: 'allow' },
      resolvedBy: 'alice',
    });
    expect(asked.metadata?.actions?.[0].resolvedAt).toBeTruthy();
    const types = (await chat.events()).map((event) => event.type);
    expect(types).toEqual([
      'message.created',
      'turn.started',
      'message.created',
      'tool.called',
      'action.required',
      'turn.paused',
      'action.resolved',
      'turn.started',
      'tool.result',
      'text.delta',
      'message.created',
      'turn.completed',
    ]);
    await heed.close();
  });

  it('a deny runs nothing and the model reads the refusal with the comment', async () => {
    const { heed, chat, runs, model } = await pausedRefund();
    const [pending] = await chat.pendingActions();
    const done = await pending.decline('Not this one.');
    expect(done.status).toBe('completed');
    expect(runs).toHaveLength(0);
    expect(lastToolResult(model.calls[1].messages as never)).toEqual({
      type: 'error-text',
      value: 'The user denied this call. Their comment: Not this one.',
    });
    const events = await chat.events();
    expect(events.find((event) => event.type === 'action.resolved')!.data).toMatchObject({
      status: 'rejected',
      decision: 'deny',
      channel: 'api',
    });
    await heed.close();
  });

  it('edited arguments replace the call; bad ones are refused naming the field and the action stays pending', async () => {
    const { heed, chat, runs, paused } = await pausedRefund();
    const actionId = paused.pendingActions![0].id;
    const error = await chat
      .resolve(actionId, { type: 'approval', decision: 'allow', approvedArgs: { orderId: 42, amount: 500 } })
      .catch((thrown) => thrown);
    expect(HeedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_approved_args', status: 400, details: { field: 'amount' } });
    expect(error.message).toContain('amount');
    expect((await chat.pendingActions()).map((action) => action.id)).toEqual([actionId]);

    const done = await chat.resolve(actionId, {
      type: 'approval',
      decision: 'allow',
      approvedArgs: { orderId: 42, amount: 3 },
    });
    expect(done.status).toBe('completed');
    expect(runs.map((run) => run.amount)).toEqual([3]);
    const action = (await chat.actions())[0];
    expect(action.resolution).toMatchObject({ decision: 'allow', approvedArgs: { orderId: 42, amount: 3 } });
    await heed.close();
  });

  it('remember approves later calls silently, with an event for each pass; forget asks again', async () => {
    const { heed, chat, runs } = await pausedRefund();
    const [pending] = await chat.pendingActions();
    await pending.approve({ remember: true });
    expect(await chat.rememberedTools()).toMatchObject([{ toolName: 'issue_refund', rememberedBy: 'alice' }]);

    const again = await chat.send('and order 42 again');
    expect(again.status).toBe('completed');
    expect(runs).toHaveLength(2);
    const silent = (await chat.events()).filter(
      (event) => event.type === 'action.resolved' && event.data.channel === 'remembered',
    );
    expect(silent).toHaveLength(1);
    expect(silent[0].data).toMatchObject({ toolName: 'issue_refund', status: 'approved', channel: 'remembered' });

    await chat.forgetTool('issue_refund');
    await expect(chat.forgetTool('issue_refund')).rejects.toMatchObject({ code: 'not_found', status: 404 });
    const third = await chat.send('once more');
    expect(third.status).toBe('requires_action');
    expect(runs).toHaveLength(2);
    await heed.close();
  });

  it('a predicate decides per call, and such approvals cannot be remembered', async () => {
    const { heed, chat, paused } = await pausedRefund({ needsApproval: (input) => input.amount > 1 });
    const action = paused.pendingActions![0];
    expect(action).toMatchObject({ canRemember: false });
    await expect(
      chat.resolve(action.id, { type: 'approval', decision: 'allow', remember: true }),
    ).rejects.toMatchObject({ code: 'invalid_resolution' });
    await heed.close();

    const small = refundAgent({
      specificationVersion: spec,
      needsApproval: (input) => input.amount > 10,
    });
    const other = testHeed([small.agent]);
    const conversation = await other.createConversation({ agent: 'support' });
    const result = await other.conversation(conversation.id).send('refund');
    expect(result.status).toBe('completed');
    expect(small.runs).toHaveLength(1);
    await other.close();
  });

  it('checks the resolution type and shape before anything is recorded', async () => {
    const { heed, chat, paused } = await pausedRefund();
    const actionId = paused.pendingActions![0].id;
    await expect(chat.resolve(actionId, { type: 'question', answers: {} })).rejects.toMatchObject({
      code: 'invalid_resolution',
      status: 400,
    });
    await expect(chat.resolve(actionId, { type: 'approval', decision: 'maybe' })).rejects.toMatchObject({
      code: 'invalid_resolution',
    });
    await expect(chat.resolve(actionId, 'yes')).rejects.toMatchObject({ code: 'invalid_resolution' });
    expect((await chat.pendingActions())[0].id).toBe(actionId);
    expect((await chat.events()).some((event) => event.type === 'action.resolved')).toBe(false);
    await heed.close();
  });
});
