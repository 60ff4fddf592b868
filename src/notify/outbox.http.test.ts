import { afterEach, describe, expect, it } from 'vitest';
import { refundAgent, testHeed } from '../../test/kit.js';
import { webhookReceiver } from '../../test/notify/receivers.js';
import { engineOf, hooksOf } from '../heed.js';

const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;

/** A clock the test moves by hand. */
function manualClock(start = '2026-03-01T09:00:00.000Z') {
  let now = new Date(start).getTime();
  return { now: () => new Date(now), advanceMinutes: (minutes: number) => void (now += minutes * 60_000) };
}

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function receiver() {
  const hook = await webhookReceiver();
  cleanup.push(hook.close);
  return {
    ...hook,
    types: () =>
      hook.calls.map(
        (call) =>
          JSON.parse(call.body) as {
            type: string;
            timestamp: string;
            data: { action: { id: string; status: string; channel?: string }; conversation: { agent: string } };
          },
      ),
  };
}

describe('the outbox: which changes notify whom', () => {
  it('writes nothing when nothing is configured', async () => {
    const heed = testHeed([refundAgent().agent]);
    cleanup.push(() => heed.close());
    const { id } = await heed.createConversation({ agent: 'support' });
    const paused = await heed.conversation(id).send('refund');
    await heed.conversation(id).resolve(paused.pendingActions![0].id, { type: 'approval', decision: 'allow' });
    expect(await engineOf(heed).store.listDeliveries({})).toEqual([]);
  });

  it('a lapse is action.expired and a cancel action.cancelled, stamped with the injected clock', async () => {
    const clock = manualClock();
    const hook = await receiver();
    const heed = testHeed([refundAgent().agent], {
      now: clock.now,
      hitl: { timeoutMinutes: 10, onTimeout: 'cancel' },
      notify: { webhooks: [{ url: hook.url, secret }], pollIntervalMs: 20 },
    });
    cleanup.push(() => heed.close());
    const first = await heed.createConversation({ agent: 'support' });
    const lapsing = (await heed.conversation(first.id).send('refund')).pendingActions![0].id;
    const second = await heed.createConversation({ agent: 'support' });
    const cancelled = (await heed.conversation(second.id).send('refund')).pendingActions![0].id;
    await heed.conversation(second.id).cancel();
    clock.advanceMinutes(11);
    await heed.expireDue();
    await hook.until((calls) => calls.length === 4);
    const seen = hook.types().map((body) => [body.type, body.data.action.id, body.data.action.status, body.timestamp]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['action.required', lapsing, 'pending', '2026-03-01T09:00:00.000Z'],
        ['action.required', cancelled, 'pending', '2026-03-01T09:00:00.000Z'],
        ['action.cancelled', cancelled, 'cancelled', '2026-03-01T09:00:00.000Z'],
        ['action.expired', lapsing, 'expired', '2026-03-01T09:11:00.000Z'],
      ]),
    );
  });

  it('filters webhooks by event and agent; an agent’s own notify replaces the server’s', async () => {
    const all = await receiver();
    const requiredOnly = await receiver();
    const otherOwn = await receiver();
    const support = refundAgent().agent;
    const other = { ...refundAgent().agent, name: 'other', notify: { webhooks: [{ url: otherOwn.url, secret }] } };
    const heed = testHeed([support, other], {
      notify: {
        webhooks: [
          { url: all.url, secret, agents: ['support'] },
          { url: requiredOnly.url, secret, events: ['action.required'] },
        ],
        pollIntervalMs: 20,
      },
    });
    cleanup.push(() => heed.close());
    for (const agent of ['support', 'other']) {
      const { id } = await heed.createConversation({ agent });
      const paused = await heed.conversation(id).send('refund');
      await heed.conversation(id).resolve(paused.pendingActions![0].id, { type: 'approval', decision: 'deny' });
    }
    await Promise.all([
      all.until((calls) => calls.length === 2),
      requiredOnly.until((calls) => calls.length === 1),
      otherOwn.until((calls) => calls.length === 2),
    ]);
    // Nothing left to send: a delivery to a receiver that should not get it would still be pending, or in.
    const store = engineOf(heed).store;
    await expect.poll(() => store.listDeliveries({ status: 'pending' })).toEqual([]);
    expect(all.types().map((body) => [body.type, body.data.conversation.agent])).toEqual([
      ['action.required', 'support'],
      ['action.resolved', 'support'],
    ]);
    expect(requiredOnly.types().map((body) => [body.type, body.data.conversation.agent])).toEqual([
      ['action.required', 'support'],
    ]);
    expect(otherOwn.types().map((body) => [body.type, body.data.conversation.agent])).toEqual([
      ['action.required', 'other'],
      ['action.resolved', 'other'],
    ]);
  });

  it('a link never outlives its action, and is refused once expired', async () => {
    const clock = manualClock();
    const heed = testHeed([refundAgent().agent], {
      now: clock.now,
      hitl: { timeoutMinutes: 30 },
      notify: { publicUrl: 'https://heed.example.com/', linkTtlMinutes: 60 },
    });
    cleanup.push(() => heed.close());
    const { id } = await heed.createConversation({ agent: 'support' });
    const actionId = (await heed.conversation(id).send('refund')).pendingActions![0].id;
    const action = (await engineOf(heed).store.getAction(id, actionId))!;
    const conversation = (await engineOf(heed).store.getConversation(id))!;
    const links = (await hooksOf(heed).notifier.links(action, conversation, 'ada'))!;
    expect(links.page).toMatch(/^https:\/\/heed\.example\.com\/a\/[\w-]+$/);
    const token = links.page.split('/').at(-1)!;
    expect(token).not.toContain(id);
    expect(await hooksOf(heed).notifier.readToken(token)).toEqual({
      conversationId: id,
      actionId,
      recipient: 'ada',
      expiresAt: Date.parse('2026-03-01T09:30:00.000Z'),
    });
    clock.advanceMinutes(29);
    expect(await hooksOf(heed).notifier.readToken(token)).toBeDefined();
    clock.advanceMinutes(1);
    expect(await hooksOf(heed).notifier.readToken(token)).toBeUndefined();
  });
});
