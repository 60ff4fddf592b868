import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { memoryStore, tool, type Store } from 'heed';
import { scriptedModel } from 'heed/testing';
import { refundAgent, testHeed } from '../../test/kit.js';

function twoRefunds() {
  const runs: number[] = [];
  const model = scriptedModel(({ stepIndex }) =>
    stepIndex === 0
      ? {
          toolCalls: [
            { toolName: 'refund', input: { orderId: 1 } },
            { toolName: 'refund', input: { orderId: 2 } },
          ],
        }
      : { text: 'Done.' },
  );
  const agent = {
    name: 'support',
    model,
    tools: {
      refund: tool({
        inputSchema: z.object({ orderId: z.number() }),
        needsApproval: true,
        execute: async ({ orderId }) => {
          runs.push(orderId);
          return 'ok';
        },
      }),
    },
  };
  return { agent, model, runs };
}

describe('settling answers', () => {
  it('an answer whose read of the pause went stale while another answer was recorded is not applied as is', async () => {
    const { agent, model, runs } = twoRefunds();
    const store = memoryStore();
    let opened!: () => void;
    const gate = new Promise<void>((resolve) => (opened = resolve));
    let delayNext = false;
    // The first answer's read of the pause is held back until the second answer is fully recorded, so
    // it decides from a snapshot that no longer holds.
    const slow: Store = {
      ...store,
      async readConversation(id, parts) {
        const read = await store.readConversation(id, parts);
        if (delayNext) {
          delayNext = false;
          await gate;
        }
        return read;
      },
    };
    const heed = testHeed([agent], { store: slow });
    const { id } = await heed.createConversation({ agent: 'support' });
    const chat = heed.conversation(id);
    const [first, second] = (await chat.send('refund both')).pendingActions!;
    delayNext = true;
    const one = chat.resolve(first.id, { type: 'approval', decision: 'allow' });
    const two = await chat.resolve(second.id, { type: 'approval', decision: 'allow' });
    expect(two.status).toBe('requires_action');
    opened();
    expect((await one).status).toBe('completed');
    const snapshot = await chat.get();
    expect(snapshot.runtime).toEqual({ status: 'idle', pendingActionIds: [] });
    expect(runs.sort()).toEqual([1, 2]);
    expect(model.calls).toHaveLength(2);
    await heed.close();
  });

  it('keeps every answer of a pause and continues exactly once, on the answer that closes it', async () => {
    const { agent, model, runs } = twoRefunds();
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'support' });
    const chat = heed.conversation(id);
    const paused = await chat.send('refund both');
    expect(paused.pendingActions).toHaveLength(2);
    const [first, second] = paused.pendingActions!;

    const results = await Promise.all([
      chat.resolve(first.id, { type: 'approval', decision: 'allow' }),
      chat.resolve(second.id, { type: 'approval', decision: 'deny', comment: 'no' }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(['completed', 'requires_action']);
    expect(runs).toEqual([1]);
    expect(model.calls).toHaveLength(2);
    const actions = await chat.actions();
    expect(actions.find((action) => action.id === first.id)!.resolution).toEqual({
      type: 'approval',
      decision: 'allow',
    });
    expect(actions.find((action) => action.id === second.id)!.resolution).toEqual({
      type: 'approval',
      decision: 'deny',
      comment: 'no',
    });
    expect(
      (await chat.events()).filter((event) => event.type === 'turn.started').map((event) => event.data.trigger),
    ).toEqual(['message', 'answer']);
    await heed.close();
  });

  it('the first valid answer to an action wins; every other gets 409 with the stored answer', async () => {
    const { agent, runs, model } = refundAgent();
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'support' });
    const chat = heed.conversation(id);
    const paused = await chat.send('refund');
    const actionId = paused.pendingActions![0].id;
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        chat.resolve(actionId, {
          type: 'approval',
          decision: index % 2 ? 'allow' : 'deny',
          comment: `answer ${index}`,
        }),
      ),
    );
    const won = attempts.filter((attempt) => attempt.status === 'fulfilled');
    const lost = attempts.filter((attempt): attempt is PromiseRejectedResult => attempt.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    const stored = (await chat.actions())[0];
    for (const loser of lost) {
      expect(loser.reason).toMatchObject({
        code: 'action_not_pending',
        status: 409,
        details: { resolution: stored.resolution, channel: stored.channel },
      });
    }
    expect(runs).toHaveLength((stored.resolution as { decision: string }).decision === 'allow' ? 1 : 0);
    expect(model.calls).toHaveLength(2);
    await heed.close();
  });

  it('runs the checks in the fixed order', async () => {
    const { agent } = refundAgent();
    const heed = testHeed([agent], {
      hitl: { authorizeResolve: (caller) => caller?.userId === 'manager' },
      limits: { maxTokensPerConversation: 1 },
    });
    const { id } = await heed.createConversation({ agent: 'support', ownerId: 'alice' });
    const chat = heed.conversation(id);
    const paused = await chat.send('refund');
    const actionId = paused.pendingActions![0].id;
    const alice = { caller: { userId: 'alice' } };
    const manager = { caller: { userId: 'manager' } };

    await expect(heed.conversation('c_nope').resolve(actionId, {}, manager)).rejects.toMatchObject({
      code: 'not_found',
      status: 404,
    });
    await expect(chat.resolve('a_nope', {}, manager)).rejects.toMatchObject({ code: 'not_found' });
    // 403 comes before 400: a malformed answer from someone who may not answer is refused as forbidden.
    await expect(chat.resolve(actionId, { nonsense: true }, alice)).rejects.toMatchObject({
      code: 'action_forbidden',
      status: 403,
    });
    await expect(chat.resolve(actionId, { nonsense: true }, manager)).rejects.toMatchObject({
      code: 'invalid_resolution',
      status: 400,
    });
    // 402 last: the answer would let the agent run again, and the budget is spent; nothing is recorded.
    await expect(chat.resolve(actionId, { type: 'approval', decision: 'allow' }, manager)).rejects.toMatchObject({
      code: 'budget_reached',
      status: 402,
    });
    expect((await chat.pendingActions()).map((action) => action.id)).toEqual([actionId]);
    await heed.close();
  });

  it("hides other people's conversations and refuses writes to a channel conversation over HTTP", async () => {
    const { agent } = refundAgent();
    const heed = testHeed([agent]);
    const mine = await heed.createConversation({ agent: 'support', ownerId: 'alice' });
    await expect(heed.conversation(mine.id).get({ caller: { userId: 'eve' } })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(heed.conversation(mine.id).send('hi', { caller: { userId: 'eve' } })).rejects.toMatchObject({
      code: 'not_found',
    });
    const slack = await heed.createConversation({ agent: 'support', channel: 'slack' });
    await expect(heed.conversation(slack.id).send('hi')).rejects.toMatchObject({ code: 'channel_chat', status: 409 });
    await heed.close();
  });

  it('a new message while a pause is open is refused, or cancels it under the cancel policy', async () => {
    const strict = refundAgent();
    const heed = testHeed([strict.agent]);
    const { id } = await heed.createConversation({ agent: 'support' });
    const paused = await heed.conversation(id).send('refund');
    await expect(heed.conversation(id).send('hello?')).rejects.toMatchObject({
      code: 'action_pending',
      status: 409,
      details: { pendingActionIds: [paused.pendingActions![0].id] },
    });
    await heed.close();

    const lenient = refundAgent({
      respond: ({ stepIndex, messages }) => {
        const last = messages.at(-1)!;
        const text = last.role === 'user' ? (last.content[0] as { text: string }).text : '';
        return stepIndex === 0 && text === 'refund'
          ? { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] }
          : { text: 'Sure.' };
      },
    });
    const other = testHeed([lenient.agent], { pendingActionPolicy: 'cancel' });
    const conversation = await other.createConversation({ agent: 'support' });
    const chat = other.conversation(conversation.id);
    await chat.send('refund');
    const next = await chat.send('never mind');
    expect(next.status).toBe('completed');
    const action = (await chat.actions())[0];
    expect(action).toMatchObject({ status: 'cancelled', channel: 'system' });
    expect(action.resolvedBy).toBeUndefined();
    expect(lenient.runs).toHaveLength(0);
    const sent = lenient.model.calls.at(-1)!.messages;
    expect(JSON.stringify(sent)).toContain('Cancelled');
    await other.close();
  });

  it('cancel closes an open pause; answering it afterwards is 409', async () => {
    const { agent, runs } = refundAgent();
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'support' });
    const chat = heed.conversation(id);
    const paused = await chat.send('refund');
    expect(await chat.cancel()).toEqual({ status: 'idle', cancelled: true });
    await expect(
      chat.resolve(paused.pendingActions![0].id, { type: 'approval', decision: 'allow' }),
    ).rejects.toMatchObject({ code: 'action_not_pending' });
    const events = await chat.events();
    expect(events.at(-1)!.type).toBe('turn.cancelled');
    expect(events.find((event) => event.type === 'action.resolved')!.data).toMatchObject({
      status: 'cancelled',
      cancelled: true,
    });
    expect(runs).toHaveLength(0);
    expect((await chat.get()).conversation.status).toBe('idle');
    await heed.close();
  });
});
