import { describe, expect, it } from 'vitest';
import { lastToolResult, refundAgent, testHeed } from '../../test/kit.js';
import type { Logger } from '../logger.js';
import { memoryStore } from '../store/memory/memory-store.js';

/** A clock the test moves by hand. */
function manualClock(start = '2026-03-01T09:00:00.000Z') {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    advanceMinutes(minutes: number) {
      now += minutes * 60_000;
    },
  };
}

describe('lapsing', () => {
  it('gives every action a deadline from hitl.timeoutMinutes (fractions allowed, 0 = never)', async () => {
    const clock = manualClock();
    const { agent } = refundAgent();
    const heed = testHeed([agent], { now: clock.now, hitl: { timeoutMinutes: 1.5 } });
    const { id } = await heed.createConversation({ agent: 'support' });
    const paused = await heed.conversation(id).send('refund');
    expect(paused.pendingActions![0].expiresAt).toBe('2026-03-01T09:01:30.000Z');
    await heed.close();

    const never = testHeed([{ ...refundAgent().agent, hitl: { timeoutMinutes: 0 } }], { now: clock.now });
    const other = await never.createConversation({ agent: 'support' });
    const waiting = await never.conversation(other.id).send('refund');
    expect(waiting.pendingActions![0].expiresAt).toBeUndefined();
    await never.close();
  });

  it('under deny, a lapsed approval is a refusal by system:timeout and the agent carries on', async () => {
    const clock = manualClock();
    const { agent, runs, model } = refundAgent();
    const heed = testHeed([agent], { now: clock.now, hitl: { timeoutMinutes: 10 } });
    const { id } = await heed.createConversation({ agent: 'support' });
    const chat = heed.conversation(id);
    const paused = await chat.send('refund');
    const actionId = paused.pendingActions![0].id;

    clock.advanceMinutes(5);
    expect((await heed.expireDue()).lapsed).toBe(0);
    clock.advanceMinutes(6);
    // Due but not yet swept: an answer is refused as lapsed.
    await expect(chat.resolve(actionId, { type: 'approval', decision: 'allow' })).rejects.toMatchObject({
      code: 'action_expired',
      status: 410,
    });

    const report = await heed.expireDue();
    expect(report.lapsed).toBe(1);
    expect(report.turns.map((turn) => turn.status)).toEqual(['completed']);
    expect(runs).toHaveLength(0);
    expect((lastToolResult(model.calls[1].messages as never) as { value: string }).value).toMatch(
      /Nobody answered in time/,
    );
    const action = (await chat.actions())[0];
    expect(action).toMatchObject({
      status: 'expired',
      channel: 'timeout',
      resolution: { type: 'approval', decision: 'deny', comment: 'timed out' },
    });
    expect(action.resolvedBy).toBe('system:timeout');
    const resolved = (await chat.events()).find((event) => event.type === 'action.resolved')!;
    expect(resolved.data).toMatchObject({
      status: 'rejected',
      resolvedBy: 'system:timeout',
      channel: 'timeout',
      expired: true,
    });
    // Swept once: a second sweep finds nothing, and answering now is still 410.
    expect((await heed.expireDue()).lapsed).toBe(0);
    await expect(chat.resolve(actionId, { type: 'approval', decision: 'allow' })).rejects.toMatchObject({
      code: 'action_expired',
    });
    await heed.close();
  });

  it('the policy is the one in force when the pause was taken', async () => {
    const clock = manualClock();
    const kit = refundAgent();
    const hitl: { timeoutMinutes: number; onTimeout: 'deny' | 'cancel' } = { timeoutMinutes: 1, onTimeout: 'cancel' };
    const heed = testHeed([kit.agent], { now: clock.now, hitl });
    const { id } = await heed.createConversation({ agent: 'support' });
    const chat = heed.conversation(id);
    await chat.send('refund');
    hitl.onTimeout = 'deny';
    clock.advanceMinutes(2);
    const report = await heed.expireDue();
    expect(report).toMatchObject({ lapsed: 1, turns: [] });
    expect(kit.model.calls).toHaveLength(1);
    const events = await chat.events();
    expect(events.at(-1)).toMatchObject({ type: 'turn.cancelled', data: { reason: 'action_expired' } });
    expect((await chat.actions())[0]).toMatchObject({ status: 'expired', channel: 'timeout' });
    expect((await chat.get()).conversation.status).toBe('idle');
    // The conversation takes a new message.
    expect((await chat.send('refund again')).status).toBe('requires_action');
    await heed.close();
  });

  it.each(['deny', 'cancel'] as const)(
    'under %s, a lapse reads as one: expired: true, by system:timeout, through the timeout (seed 002, DESIGN §4)',
    async (onTimeout) => {
      const clock = manualClock();
      const heed = testHeed([refundAgent().agent], { now: clock.now, hitl: { timeoutMinutes: 10, onTimeout } });
      const { id } = await heed.createConversation({ agent: 'support' });
      const chat = heed.conversation(id);
      await chat.send('refund');
      clock.advanceMinutes(11);
      expect((await heed.expireDue()).lapsed).toBe(1);

      // A filter on `expired` finds the lapse whatever the policy was.
      const lapses = (await chat.events()).filter((event) => event.type === 'action.resolved' && event.data.expired);
      expect(lapses).toHaveLength(1);
      expect(lapses[0].data).toMatchObject({
        status: onTimeout === 'deny' ? 'rejected' : 'expired',
        expired: true,
        resolvedBy: 'system:timeout',
        channel: 'timeout',
      });
      expect((await chat.actions())[0]).toMatchObject({
        status: 'expired',
        resolvedBy: 'system:timeout',
        channel: 'timeout',
      });
      await heed.close();
    },
  );

  it('a deny pause whose agent is gone from the config is cancelled at its lapse, and the log says why', async () => {
    const clock = manualClock();
    const store = memoryStore();
    const before = testHeed([refundAgent().agent], { now: clock.now, store, hitl: { timeoutMinutes: 10 } });
    const { id } = await before.createConversation({ agent: 'support' });
    expect((await before.conversation(id).send('refund')).status).toBe('requires_action');
    await before.close();

    // Started again on the same store with the agent "support" taken out of the config.
    const warnings: Array<{ fields: object; message?: string }> = [];
    const quiet = () => undefined;
    const logger: Logger = {
      debug: quiet,
      info: quiet,
      error: quiet,
      warn: (fields, message) => warnings.push({ fields, message }),
    };
    const other = refundAgent();
    const heed = testHeed([{ ...other.agent, name: 'billing' }], {
      now: clock.now,
      store,
      logger,
      hitl: { timeoutMinutes: 10 },
    });
    const chat = heed.conversation(id);
    clock.advanceMinutes(11);
    const report = await heed.expireDue();

    // Nobody is left to carry on: the pause ends as a cancel, not as a failed turn.
    expect(report).toMatchObject({ lapsed: 1, turns: [] });
    const types = (await chat.events()).map((event) => event.type);
    expect(types).not.toContain('turn.failed');
    expect(types.at(-1)).toBe('turn.cancelled');
    expect((await chat.events()).at(-1)).toMatchObject({ data: { reason: 'action_expired' } });
    expect((await chat.actions())[0]).toMatchObject({ status: 'expired', channel: 'timeout' });
    expect((await chat.get()).conversation.status).toBe('idle');
    expect(other.model.calls).toHaveLength(0);
    expect(warnings).toEqual([
      {
        fields: { conversationId: id, agent: 'support' },
        message: expect.stringContaining('"support" is no longer configured'),
      },
    ]);
    await heed.close();
  });

  it('a pause larger than limits.maxStateBytes is not taken and the tool is not run', async () => {
    const { agent, runs } = refundAgent();
    const heed = testHeed([agent], { limits: { maxStateBytes: 200 } });
    const { id } = await heed.createConversation({ agent: 'support' });
    const result = await heed.conversation(id).send('refund');
    expect(result.status).toBe('completed');
    expect(result.warnings).toMatchObject([{ code: 'pause_state_too_large' }]);
    expect(runs).toHaveLength(0);
    expect(await heed.conversation(id).pendingActions()).toEqual([]);
    await heed.close();
  });

  it('a spent token budget refuses new messages with 402 and records nothing', async () => {
    const kit = refundAgent({ respond: () => ({ text: 'Hello.', usage: { inputTokens: 60, outputTokens: 50 } }) });
    const heed = testHeed([kit.agent], { limits: { maxTokensPerConversation: 100 } });
    const { id } = await heed.createConversation({ agent: 'support' });
    const chat = heed.conversation(id);
    expect((await chat.send('hi')).status).toBe('completed');
    const before = (await chat.events()).length;
    await expect(chat.send('again')).rejects.toMatchObject({ code: 'budget_reached', status: 402 });
    expect((await chat.events()).length).toBe(before);
    await heed.close();
  });
});
