import { describe, expect, it } from 'vitest';
import { quorumAgent } from '../../test/fixtures/quorum-agent.js';
import { refundAgent, testHeed } from '../../test/kit.js';
import { verifyChain } from '../store/audit.js';
import { memoryStore } from '../store/memory/memory-store.js';

/** What each kind of decision leaves in the audit log (docs/operating.md, The audit log), through the library. */
describe('the audit log', () => {
  it('records votes, the deciding answer, an extension, a cancel and a lapse, in one chain', async () => {
    let now = Date.parse('2026-03-01T09:00:00.000Z');
    const store = memoryStore();
    const heed = testHeed([quorumAgent(() => undefined), refundAgent().agent], {
      store,
      now: () => new Date(now),
      hitl: { timeoutMinutes: 10, maxExtendMinutes: 600 },
    });
    const ada = { caller: { userId: 'ada' } };

    const payment = await heed.createConversation({ agent: 'payments', ownerId: 'ada' });
    const asked = await heed.conversation(payment.id).send('pay acme', ada);
    const vote = asked.pendingActions![0].id;
    for (const userId of ['bob', 'cat'])
      await heed
        .conversation(payment.id)
        .resolve(vote, { type: 'approval', decision: 'allow' }, { caller: { userId } });

    const cancelled = await heed.createConversation({ agent: 'support', ownerId: 'ada' });
    const refund = await heed.conversation(cancelled.id).send('refund', ada);
    await heed.conversation(cancelled.id).extend(refund.pendingActions![0].id, 30, ada);
    await heed.conversation(cancelled.id).cancel(ada);

    const lapsed = await heed.createConversation({ agent: 'support', ownerId: 'ada' });
    await heed.conversation(lapsed.id).send('refund', ada);
    now += 11 * 60_000;
    expect((await heed.expireDue()).lapsed).toBe(1);

    const entries = await store.listAudit({});
    expect(entries.map((entry) => [entry.verb, entry.actor, entry.decision, entry.surface])).toEqual([
      ['vote', 'bob', 'allow', 'api'],
      ['vote', 'cat', 'allow', 'api'],
      ['answer', 'cat', 'allow', 'api'],
      ['extend', 'ada', '2026-03-01T09:30:00.000Z', 'api'],
      ['cancel', 'ada', 'cancelled', 'api'],
      ['lapse', 'system:timeout', 'deny', 'timeout'],
    ]);
    expect(entries.slice(0, 3).every((entry) => entry.conversationId === payment.id && entry.actionId === vote)).toBe(
      true,
    );
    expect(verifyChain(entries)).toEqual({ ok: true, count: 6 });
    await heed.close();
  });
});
