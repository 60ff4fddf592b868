import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActionRecord, ConversationRecord } from '../types.js';
import { verifyChain, ZERO_HASH, type NewAuditEntry } from './audit.js';
import type { Change, Store } from './store.js';
import type { OpenedStore } from './store-contract.js';

/*
 * The store contract's cases for the audit log, retention and erasure (docs/operating.md), run by
 * describeStoreContract against every store.
 */

const t0 = Date.UTC(2025, 0, 1);
const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();

function record(id: string, fields: Partial<ConversationRecord> = {}): ConversationRecord {
  return {
    id,
    agent: 'support',
    ownerId: 'ada',
    channel: null,
    status: 'idle',
    version: 1,
    metadata: null,
    createdAt: at(0),
    updatedAt: at(0),
    actionDueAt: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    tokensUsed: 0,
    lastEventSeq: 0,
    intakeDone: false,
    ...fields,
  };
}

function pendingAction(conversationId: string, id: string, fields: Partial<ActionRecord> = {}): ActionRecord {
  return {
    id,
    conversationId,
    messageId: `${conversationId}-m0`,
    toolCallId: `call-${id}`,
    toolName: 'issue_refund',
    kind: 'approval',
    origin: 'tool',
    journalIndex: 0,
    status: 'pending',
    request: { kind: 'approval', args: { amount: 5 }, title: 'Refund', approvers: ['grace', 'ada'] },
    createdAt: at(10),
    expiresAt: null,
    onTimeout: 'deny',
    resolution: null,
    resolvedBy: null,
    channel: null,
    resolvedAt: null,
    defaulted: null,
    ...fields,
  } as ActionRecord;
}

const entry = (seconds: number, fields: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  at: at(seconds),
  actorKey: 'p_00000000000000aa',
  verb: 'answer',
  surface: 'api',
  ...fields,
});

export function describeUpkeepContract(name: string, open: () => Promise<OpenedStore>): void {
  describe(`store contract (audit, retention, erasure): ${name}`, () => {
    let opened: OpenedStore;
    let store: Store;

    beforeEach(async () => {
      opened = await open();
      store = opened.store;
      await store.migrate();
    });

    afterEach(async () => {
      await store.close();
      await opened.cleanup?.();
    });

    async function commitOk(change: Change) {
      const result = await store.commit(change);
      if (!result.ok) throw new Error(`commit refused: ${result.reason}`);
      return result;
    }

    it('chains audit entries written with a change, alone, and not at all with a refused change', async () => {
      await commitOk({
        conversationId: 'c1',
        create: record('c1', { status: 'requires_action' }),
        actions: [pendingAction('c1', 'a1')],
        audit: {
          entries: [entry(1, { conversationId: 'c1', actionId: 'a1', decision: 'allow' })],
          people: [{ key: 'p_00000000000000aa', userId: 'ada' }],
        },
      });
      await store.appendAudit({
        entries: [entry(2, { verb: 'sign-in', onBehalfOfKey: 'p_00000000000000bb' })],
        people: [{ key: 'p_00000000000000bb', userId: 'grace' }],
      });
      // A stale version: the change is refused, and so is its entry.
      const stale = await store.commit({
        conversationId: 'c1',
        expectVersion: 9,
        audit: { entries: [entry(3)], people: [] },
      });
      expect(stale.ok).toBe(false);
      const entries = await store.listAudit({});
      expect(entries.map((e) => [e.seq, e.verb, e.actor, e.onBehalfOf])).toEqual([
        [1, 'answer', 'ada', undefined],
        [2, 'sign-in', 'ada', 'grace'],
      ]);
      expect(entries[0].prevHash).toBe(ZERO_HASH);
      expect(entries[1].prevHash).toBe(entries[0].hash);
      expect(entries[0]).toMatchObject({ conversationId: 'c1', actionId: 'a1', decision: 'allow', surface: 'api' });
      expect(verifyChain(entries)).toEqual({ ok: true, count: 2 });
      expect((await store.listAudit({ after: 1 })).map((e) => e.seq)).toEqual([2]);
      expect((await store.listAudit({ since: at(2) })).map((e) => e.seq)).toEqual([2]);
      expect((await store.listAudit({ limit: 1 })).map((e) => e.seq)).toEqual([1]);
    });

    it('writes the values a decision makes with its audit entry, in one step', async () => {
      await store.putValues([
        { scope: 'tokens-of:ada', key: 'old', value: 'h0' },
        { scope: 'token:h0', key: 'token', value: '{}' },
      ]);
      await store.appendAudit(
        { entries: [entry(1, { verb: 'token.create' })], people: [] },
        {
          put: [
            { scope: 'token:h1', key: 'token', value: '{"id":"pat_1"}' },
            { scope: 'tokens-of:ada', key: 'pat_1', value: 'h1' },
          ],
          drop: [{ scope: 'token:h0' }, { scope: 'tokens-of:ada', keys: ['old'] }],
        },
      );
      expect(await store.listValues('token:h1')).toEqual([{ key: 'token', value: '{"id":"pat_1"}' }]);
      expect((await store.listValues('tokens-of:ada')).map((row) => row.key)).toEqual(['pat_1']);
      expect(await store.listValues('token:h0')).toEqual([]);
      expect((await store.listAudit({})).map((e) => e.verb)).toEqual(['token.create']);
    });

    it('prunes the audit log from the front, keeping the last pruned hash as the anchor', async () => {
      expect(await store.auditAnchor()).toEqual({ seq: 0, hash: ZERO_HASH });
      await store.appendAudit({ entries: [entry(1), entry(2), entry(100), entry(101)], people: [] });
      const all = await store.listAudit({});
      expect(await store.pruneAudit(at(50))).toBe(2);
      expect(await store.auditAnchor()).toEqual({ seq: 2, hash: all[1].hash });
      const kept = await store.listAudit({});
      expect(kept.map((e) => e.seq)).toEqual([3, 4]);
      expect(verifyChain(kept, await store.auditAnchor())).toEqual({ ok: true, count: 2 });
      // The chain goes on from its head, not from what is left.
      await store.appendAudit({ entries: [entry(102)], people: [] });
      const [, , next] = await store.listAudit({});
      expect(next).toMatchObject({ seq: 5, prevHash: all[3].hash });
      expect(await store.pruneAudit(at(50))).toBe(0);
      // With every entry pruned, the anchor is where the chain goes on.
      expect(await store.pruneAudit(at(1000))).toBe(3);
      expect(await store.listAudit({})).toEqual([]);
      await store.appendAudit({ entries: [entry(103)], people: [] });
      const [after] = await store.listAudit({});
      expect(after).toMatchObject({ seq: 6, prevHash: next.hash });
      expect(verifyChain([after], await store.auditAnchor())).toEqual({ ok: true, count: 1 });
    });

    it('retention deletes finished conversations before the cutoff, in batches, and never a pending, running or queued one', async () => {
      for (let index = 0; index < 5; index++)
        await commitOk({
          conversationId: `done-${index}`,
          create: record(`done-${index}`),
          messages: [
            {
              id: `done-${index}-m0`,
              conversationId: `done-${index}`,
              position: 0,
              role: 'user',
              parts: [{ type: 'text', text: 'hello' }],
              metadata: null,
              createdAt: at(0),
            },
          ],
          events: [{ type: 'message.created', at: at(0), data: {} }],
          deliveries: [
            {
              id: `d-${index}`,
              event: 'action.resolved',
              actionId: 'x',
              target: { type: 'webhook', url: 'https://example.com' },
              createdAt: at(0),
            },
          ],
          remember: [{ toolName: 'issue_refund', rememberedBy: 'ada', rememberedAt: at(0) }],
        });
      await store.putValues([{ scope: 'langgraph:checkpoints:done-0', key: 'k', value: 'v' }]);
      await commitOk({
        conversationId: 'paused',
        create: record('paused', { status: 'requires_action' }),
        actions: [pendingAction('paused', 'p1')],
      });
      await commitOk({ conversationId: 'running', create: record('running', { status: 'running' }) });
      await commitOk({
        conversationId: 'queued',
        create: record('queued', { queue: [{ id: 'q', seq: 1, by: 'ada', queuedAt: at(0) }] } as never),
      });
      await commitOk({ conversationId: 'recent', create: record('recent', { updatedAt: at(1_000) }) });

      expect(await store.deleteFinished(at(500), 3)).toBe(3);
      expect(await store.deleteFinished(at(500), 3)).toBe(2);
      expect(await store.deleteFinished(at(500), 3)).toBe(0);
      for (let index = 0; index < 5; index++) {
        expect(await store.getConversation(`done-${index}`)).toBeUndefined();
        expect(await store.listMessages(`done-${index}`)).toEqual([]);
        expect(await store.listEvents(`done-${index}`)).toEqual([]);
      }
      expect(await store.listDeliveries({})).toEqual([]);
      expect(await store.listValues('langgraph:checkpoints:done-0')).toEqual([]);
      for (const id of ['paused', 'running', 'queued', 'recent']) expect(await store.getConversation(id)).toBeDefined();
      expect(await store.listActions('paused')).toHaveLength(1);
    });

    it("erasure removes a person's conversations and values and replaces their id in others' records", async () => {
      await commitOk({
        conversationId: 'theirs',
        create: record('theirs', { ownerId: 'ada' }),
        actions: [pendingAction('theirs', 't1')],
      });
      await commitOk({
        conversationId: 'others',
        create: record('others', { ownerId: 'grace', status: 'requires_action' }),
        actions: [
          pendingAction('others', 'o1'),
          pendingAction('others', 'o2', {
            status: 'resolved',
            resolvedBy: 'ada',
            answeredFor: 'grace',
            channel: 'api',
            resolvedAt: at(20),
            resolution: { type: 'approval', decision: 'allow' },
          } as never),
        ],
        events: [{ type: 'action.resolved', at: at(20), data: { resolvedBy: 'ada', note: 'adam stays' } }],
        remember: [{ toolName: 'issue_refund', rememberedBy: 'ada', rememberedAt: at(0) }],
      });
      await store.putValues([
        { scope: 'heed:delegation', key: 'ada', value: JSON.stringify({ to: 'grace' }) },
        { scope: 'heed:delegation', key: 'alan', value: JSON.stringify({ to: 'ada' }) },
        { scope: 'heed:delegation', key: 'linus', value: JSON.stringify({ to: 'grace' }) },
        { scope: 'heed:tokens-of:ada', key: 'pat_1', value: 'hash' },
      ]);
      await store.appendAudit({ entries: [entry(1)], people: [{ key: 'p_00000000000000aa', userId: 'ada' }] });

      const counts = await store.erasePerson({
        userId: 'ada',
        pseudonym: 'erased:00000000',
        auditKey: 'p_00000000000000aa',
        valuePrefixes: ['heed:delegation'],
        valueScopes: ['heed:tokens-of:ada'],
      });
      expect(counts.conversations).toBe(1);
      expect(counts.actions).toBe(1);
      expect(counts.replaced).toBeGreaterThanOrEqual(4);
      expect(await store.getConversation('theirs')).toBeUndefined();
      const [o1, o2] = await store.listActions('others');
      expect(o2.resolvedBy).toBe('erased:00000000');
      expect(o2.answeredFor).toBe('grace');
      expect((o1.request as { approvers: string[] }).approvers).toEqual(['grace', 'erased:00000000']);
      const [event] = await store.listEvents('others');
      expect(event.data).toMatchObject({ resolvedBy: 'erased:00000000', note: 'adam stays' });
      expect((await store.listRememberedTools('others'))[0].rememberedBy).toBe('erased:00000000');
      expect((await store.listValues('heed:delegation')).map((value) => value.key)).toEqual(['linus']);
      expect(await store.listValues('heed:tokens-of:ada')).toEqual([]);
      // The chain is whole; its entry now names the pseudonym.
      const audit = await store.listAudit({});
      expect(audit[0].actor).toBe('erased:00000000');
      expect(verifyChain(audit)).toEqual({ ok: true, count: 1 });
    });
  });
}
