import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActionRecord, ConversationRecord, JsonValue, MessageRecord, RememberedTool } from '../types.js';
import { must } from '../errors.js';
import type { ActionSettlement, Change, NewDelivery, NewEvent, Store } from './store.js';
import { describeUpkeepContract } from './upkeep-contract.js';

/** What a store's test file hands the contract: a fresh, empty store, and how to reopen and dispose of it. */
export interface OpenedStore {
  store: Store;
  /** Opens the same data again, as after a restart; the contract closes the old store first. */
  reopen?: () => Promise<Store>;
  cleanup?: () => Promise<void>;
}

const t0 = Date.UTC(2025, 0, 1);
/** A time `seconds` after the suite's epoch, as a canonical ISO string. */
const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();

/** A conversation record as a store keeps it (idle, version 1), for the store tests. */
export function conversation(id: string, fields: Partial<ConversationRecord> = {}): ConversationRecord {
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

function message(conversationId: string, position: number, fields: Partial<MessageRecord> = {}): MessageRecord {
  return {
    id: `${conversationId}-m${position}`,
    conversationId,
    position,
    role: 'user',
    parts: [{ type: 'text', text: `message ${position}` }],
    metadata: null,
    createdAt: at(position),
    ...fields,
  };
}

function action(conversationId: string, id: string, fields: Partial<ActionRecord> = {}): ActionRecord {
  return {
    id,
    conversationId,
    messageId: `${conversationId}-m1`,
    toolCallId: `call-${id}`,
    toolName: 'issue_refund',
    kind: 'approval',
    origin: 'tool',
    journalIndex: 0,
    status: 'pending',
    request: {
      kind: 'approval',
      args: { orderId: 42, amount: 5 },
      title: 'Refund',
      summary: 'Refund 5 on order 42',
      canRemember: true,
    },
    createdAt: at(10),
    expiresAt: at(86_400),
    onTimeout: 'deny',
    resolution: null,
    resolvedBy: null,
    channel: null,
    resolvedAt: null,
    defaulted: null,
    ...fields,
  };
}

const event = (type: NewEvent['type'], seconds: number, data: NewEvent['data'] = {}): NewEvent => ({
  type,
  data,
  at: at(seconds),
});

const allow = (id: string, fields: Partial<ActionSettlement> = {}): ActionSettlement => ({
  id,
  status: 'resolved',
  resolution: { type: 'approval', decision: 'allow' },
  resolvedBy: 'ada',
  channel: 'api',
  resolvedAt: at(20),
  ...fields,
});

/** Runs the one suite every `Store` must pass, through the interface only. */
export function describeStoreContract(name: string, open: () => Promise<OpenedStore>): void {
  describe(`store contract: ${name}`, () => {
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

    /** Creates `id` with two messages and one pending action; returns the stored conversation. */
    async function parked(
      id: string,
      fields: Partial<ConversationRecord> = {},
      actionFields: Partial<ActionRecord> = {},
    ) {
      const result = await commitOk({
        conversationId: id,
        create: conversation(id, { status: 'requires_action', ...fields }),
        messages: [message(id, 0), message(id, 1, { role: 'assistant' })],
        actions: [action(id, `${id}-a`, actionFields)],
        events: [event('action.required', 10)],
      });
      return result.conversation;
    }

    async function nothingWritten(
      id: string,
      version: number,
      lastEventSeq: number,
      messages: number,
      actions: number,
    ) {
      const stored = await store.getConversation(id);
      expect(stored?.version).toBe(version);
      expect(stored?.lastEventSeq).toBe(lastEventSeq);
      expect(await store.listMessages(id)).toHaveLength(messages);
      expect(await store.listActions(id)).toHaveLength(actions);
      expect(await store.listEvents(id)).toHaveLength(lastEventSeq);
    }

    it('stores a conversation with every field and returns it as stored', async () => {
      const record = conversation('c1', {
        ownerId: 'ada',
        channel: 'slack:T1/C2',
        status: 'running',
        version: 7,
        metadata: { topic: 'refunds', n: [1, null] },
        createdAt: at(1),
        updatedAt: at(2),
        actionDueAt: at(3),
        leaseOwner: 'instance-1',
        leaseExpiresAt: at(4),
        tokensUsed: 1234,
        lastEventSeq: 0,
        intakeDone: true,
      });
      const result = await commitOk({ conversationId: 'c1', create: record });
      expect(result.conversation).toEqual(record);
      expect(result.events).toEqual([]);
      expect(await store.getConversation('c1')).toEqual(record);
      expect(await store.getConversation('missing')).toBeUndefined();
    });

    it('stores messages, actions and events with every field', async () => {
      const user = message('c1', 0, {
        metadata: { intake: true, warnings: [{ code: 'tool_not_offered', message: 'x' }] },
      });
      const assistant = message('c1', 1, {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool-call', toolCallId: 'call-1', toolName: 'issue_refund', input: { orderId: 42 } },
        ],
      });
      const tool = message('c1', 2, {
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            toolCallId: 'call-1',
            toolName: 'issue_refund',
            output: { type: 'json', value: { ok: true } },
          },
        ],
      });
      const question = action('c1', 'a2', {
        kind: 'question',
        origin: 'ctx',
        journalIndex: 2,
        expiresAt: null,
        onTimeout: 'cancel',
        createdAt: at(11),
        request: {
          kind: 'question',
          preamble: 'Quick check',
          questions: [
            {
              id: 'q1',
              header: 'Size',
              prompt: 'Which size?',
              options: [{ value: 's', label: 'Small' }],
              defaults: ['s'],
            },
          ],
        },
        status: 'resolved',
        resolution: { type: 'question', answers: { q1: ['s'] } },
        resolvedBy: 'bob',
        channel: 'api',
        resolvedAt: at(12),
        defaulted: ['q1'],
      });
      const result = await commitOk({
        conversationId: 'c1',
        create: conversation('c1'),
        messages: [user, assistant, tool],
        actions: [action('c1', 'a1'), question],
        events: [
          event('message.created', 5, { messageId: 'c1-m0', nested: { list: [1, 'two', false, null] } }),
          event('turn.started', 6),
        ],
      });
      expect(await store.listMessages('c1')).toEqual([user, assistant, tool]);
      expect(await store.listActions('c1')).toEqual([action('c1', 'a1'), question]);
      expect(await store.getAction('c1', 'a2')).toEqual(question);
      expect(await store.getAction('c1', 'nope')).toBeUndefined();
      expect(await store.getAction('other', 'a1')).toBeUndefined();
      const events = [
        {
          conversationId: 'c1',
          seq: 1,
          type: 'message.created',
          data: { messageId: 'c1-m0', nested: { list: [1, 'two', false, null] } },
          at: at(5),
        },
        { conversationId: 'c1', seq: 2, type: 'turn.started', data: {}, at: at(6) },
      ];
      expect(result.events).toEqual(events);
      expect(await store.listEvents('c1')).toEqual(events);
      expect(result.conversation.lastEventSeq).toBe(2);
      expect(await store.listMessages('missing')).toEqual([]);
      expect(await store.listActions('missing')).toEqual([]);
      expect(await store.listEvents('missing')).toEqual([]);
    });

    it('refuses to create an id that exists, writing nothing', async () => {
      await parked('c1');
      const result = await store.commit({
        conversationId: 'c1',
        create: conversation('c1', { agent: 'other' }),
        messages: [message('c1', 2)],
        actions: [action('c1', 'a9')],
        events: [event('turn.started', 30)],
      });
      expect(result).toEqual({ ok: false, reason: 'exists' });
      expect((await store.getConversation('c1'))?.agent).toBe('support');
      await nothingWritten('c1', 1, 1, 2, 1);
    });

    it('refuses a change to a conversation that does not exist', async () => {
      const result = await store.commit({
        conversationId: 'nope',
        expectVersion: 1,
        events: [event('turn.started', 1)],
      });
      expect(result).toEqual({ ok: false, reason: 'not_found' });
      expect(await store.getConversation('nope')).toBeUndefined();
    });

    it('bumps the version by one per change and applies only the fields set', async () => {
      await parked('c1', { metadata: { a: 1 }, actionDueAt: at(100), tokensUsed: 5 });
      const first = await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        set: {
          status: 'running',
          leaseOwner: 'i1',
          leaseExpiresAt: at(50),
          actionDueAt: null,
          tokensUsed: 9,
          intakeDone: true,
          updatedAt: at(40),
        },
      });
      expect(first.conversation).toEqual(
        conversation('c1', {
          status: 'running',
          version: 2,
          metadata: { a: 1 },
          leaseOwner: 'i1',
          leaseExpiresAt: at(50),
          actionDueAt: null,
          tokensUsed: 9,
          intakeDone: true,
          updatedAt: at(40),
          lastEventSeq: 1,
        }),
      );
      const second = await commitOk({
        conversationId: 'c1',
        expectVersion: 2,
        set: { metadata: null, leaseOwner: null },
      });
      expect(second.conversation).toMatchObject({
        version: 3,
        metadata: null,
        leaseOwner: null,
        leaseExpiresAt: at(50),
        status: 'running',
      });
      expect(await store.getConversation('c1')).toEqual(second.conversation);
    });

    it('keeps the queue of messages waiting for the running turn, in order; an empty queue reads back as none', async () => {
      const queued = [
        { id: 'm-q1', seq: 2, by: 'ada', queuedAt: at(10) },
        { id: 'm-q2', seq: 3, by: null, queuedAt: at(11) },
      ];
      await commitOk({ conversationId: 'c1', create: conversation('c1', { status: 'running', queue: [queued[0]] }) });
      expect((await store.getConversation('c1'))?.queue).toEqual([queued[0]]);
      const grown = await commitOk({ conversationId: 'c1', expectVersion: 1, set: { queue: queued } });
      expect(grown.conversation.queue).toEqual(queued);
      expect((await store.readConversation('c1', { messages: true }))?.conversation.queue).toEqual(queued);
      // A change that does not name the queue leaves it.
      await commitOk({ conversationId: 'c1', expectVersion: 2, set: { leaseOwner: 'i2' } });
      expect((await store.getConversation('c1'))?.queue).toEqual(queued);
      const emptied = await commitOk({ conversationId: 'c1', expectVersion: 3, set: { queue: [] } });
      expect(emptied.conversation).toEqual(
        conversation('c1', {
          status: 'running',
          version: 4,
          leaseOwner: 'i2',
          updatedAt: emptied.conversation.updatedAt,
        }),
      );
      expect(await store.getConversation('c1')).not.toHaveProperty('queue');
      expect((await store.listConversations({})).map((entry) => entry.queue)).toEqual([undefined]);
    });

    it('sets updatedAt from the change: set.updatedAt, else its last event, else now', async () => {
      await parked('c1');
      const byEvent = await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        events: [event('turn.started', 60), event('turn.completed', 61)],
      });
      expect(byEvent.conversation.updatedAt).toBe(at(61));
      const bySet = await commitOk({
        conversationId: 'c1',
        expectVersion: 2,
        set: { updatedAt: at(70) },
        events: [event('turn.started', 65)],
      });
      expect(bySet.conversation.updatedAt).toBe(at(70));
      const before = Date.now();
      const byClock = await commitOk({ conversationId: 'c1', expectVersion: 3, set: { tokensUsed: 1 } });
      expect(Date.parse(byClock.conversation.updatedAt)).toBeGreaterThanOrEqual(before - 1);
      expect(Date.parse(byClock.conversation.updatedAt)).toBeLessThanOrEqual(Date.now() + 1);
    });

    it('refuses a stale version and writes nothing of the change', async () => {
      await parked('c1');
      await commitOk({ conversationId: 'c1', expectVersion: 1, set: { status: 'running' } });
      const result = await store.commit({
        conversationId: 'c1',
        expectVersion: 1,
        set: { status: 'idle', tokensUsed: 99 },
        messages: [message('c1', 2)],
        actions: [action('c1', 'a2')],
        settle: [allow('c1-a')],
        events: [event('turn.completed', 30)],
        remember: [{ toolName: 'issue_refund', rememberedBy: 'ada', rememberedAt: at(30) }],
      });
      expect(result).toEqual({ ok: false, reason: 'version' });
      await nothingWritten('c1', 2, 1, 2, 1);
      expect(await store.getConversation('c1')).toMatchObject({ status: 'running', tokensUsed: 0 });
      expect((await store.getAction('c1', 'c1-a'))?.status).toBe('pending');
      expect(await store.listRememberedTools('c1')).toEqual([]);
    });

    it('lets exactly one of two changes on the same version through', async () => {
      await parked('c1');
      const results = await Promise.all([
        store.commit({ conversationId: 'c1', expectVersion: 1, settle: [allow('c1-a', { resolvedBy: 'one' })] }),
        store.commit({ conversationId: 'c1', expectVersion: 1, settle: [allow('c1-a', { resolvedBy: 'two' })] }),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok)).toEqual([{ ok: false, reason: 'version' }]);
    });

    it('numbers events contiguously across changes and pages them with after/limit', async () => {
      const first = await commitOk({
        conversationId: 'c1',
        create: conversation('c1'),
        events: [event('message.created', 1), event('turn.started', 2)],
      });
      expect(first.events.map((e) => e.seq)).toEqual([1, 2]);
      const second = await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        events: [
          event('text.delta', 3, { text: 'a' }),
          event('text.delta', 4, { text: 'b' }),
          event('turn.completed', 5),
        ],
      });
      expect(second.events.map((e) => e.seq)).toEqual([3, 4, 5]);
      expect(second.conversation.lastEventSeq).toBe(5);
      expect((await store.listEvents('c1')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect((await store.listEvents('c1', { after: 2 })).map((e) => e.type)).toEqual([
        'text.delta',
        'text.delta',
        'turn.completed',
      ]);
      expect((await store.listEvents('c1', { after: 1, limit: 2 })).map((e) => e.seq)).toEqual([2, 3]);
      expect(await store.listEvents('c1', { after: 5 })).toEqual([]);
      const many = Array.from({ length: 501 }, (_, i) => event('text.delta', 10 + i, { i }));
      await commitOk({ conversationId: 'c1', expectVersion: 2, events: many });
      const page = await store.listEvents('c1');
      expect(page).toHaveLength(500);
      expect(page[499].seq).toBe(500);

      const branched = await commitOk({
        conversationId: 'c2',
        create: conversation('c2', { lastEventSeq: 3 }),
        events: [event('turn.started', 1)],
      });
      expect(branched.events[0].seq).toBe(4);
      expect((await store.listEvents('c2')).map((e) => e.seq)).toEqual([4]);
      expect((await store.listEvents('c2', { after: 3 })).map((e) => e.seq)).toEqual([4]);
      expect(await store.listEvents('c2', { after: 4 })).toEqual([]);
    });

    it('settles an action only from pending; a second settle rolls the whole change back', async () => {
      await parked('c1');
      const settled = await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        set: { status: 'running' },
        settle: [
          allow('c1-a', {
            resolution: { type: 'approval', decision: 'allow', comment: 'ok', remember: true },
            defaulted: [],
          }),
        ],
        events: [event('action.resolved', 20)],
      });
      expect(settled.conversation.version).toBe(2);
      expect(await store.getAction('c1', 'c1-a')).toEqual(
        action('c1', 'c1-a', {
          status: 'resolved',
          resolution: { type: 'approval', decision: 'allow', comment: 'ok', remember: true },
          resolvedBy: 'ada',
          channel: 'api',
          resolvedAt: at(20),
          defaulted: [],
        }),
      );

      const again = await store.commit({
        conversationId: 'c1',
        expectVersion: 2,
        set: { status: 'idle' },
        messages: [message('c1', 2)],
        actions: [action('c1', 'a2')],
        settle: [allow('c1-a', { status: 'cancelled', resolution: { type: 'cancelled', reason: 'late' } })],
        events: [event('action.resolved', 21)],
        remember: [{ toolName: 'issue_refund', rememberedBy: 'ada', rememberedAt: at(21) }],
      });
      expect(again).toEqual({ ok: false, reason: 'action_not_pending' });
      await nothingWritten('c1', 2, 2, 2, 1);
      expect((await store.getConversation('c1'))?.status).toBe('running');
      expect((await store.getAction('c1', 'c1-a'))?.status).toBe('resolved');
      expect(await store.listRememberedTools('c1')).toEqual([]);

      const notPending = { ok: false, reason: 'action_not_pending' };
      expect(await store.commit({ conversationId: 'c1', expectVersion: 2, settle: [allow('nope')] })).toEqual(
        notPending,
      );
      await parked('c2');
      expect(await store.commit({ conversationId: 'c1', expectVersion: 2, settle: [allow('c2-a')] })).toEqual(
        notPending,
      );
      expect((await store.getAction('c2', 'c2-a'))?.status).toBe('pending');
    });

    it('settles an action inserted by the same change, and refuses settling one twice in a change', async () => {
      await commitOk({
        conversationId: 'c1',
        create: conversation('c1'),
        actions: [action('c1', 'a1')],
        settle: [allow('a1')],
      });
      expect((await store.getAction('c1', 'a1'))?.status).toBe('resolved');
      await parked('c2');
      const twice = await store.commit({
        conversationId: 'c2',
        expectVersion: 1,
        settle: [allow('c2-a'), allow('c2-a')],
      });
      expect(twice).toEqual({ ok: false, reason: 'action_not_pending' });
      expect((await store.getAction('c2', 'c2-a'))?.status).toBe('pending');
    });

    it('keeps who settled (a user id, or null) apart from how (channel), and a remember without a user id', async () => {
      await parked('c1');
      await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        settle: [allow('c1-a', { resolvedBy: null, channel: 'timeout', status: 'expired' })],
        remember: [{ toolName: 'issue_refund', rememberedBy: null, rememberedAt: at(21) }],
      });
      expect(await store.getAction('c1', 'c1-a')).toMatchObject({
        status: 'expired',
        resolvedBy: null,
        channel: 'timeout',
      });
      expect(await store.listRememberedTools('c1')).toEqual([
        { toolName: 'issue_refund', rememberedBy: null, rememberedAt: at(21) },
      ]);
      await parked('c2');
      await commitOk({
        conversationId: 'c2',
        expectVersion: 1,
        settle: [allow('c2-a', { resolvedBy: 'system:timeout', channel: 'api' })],
      });
      expect(await store.getAction('c2', 'c2-a')).toMatchObject({ resolvedBy: 'system:timeout', channel: 'api' });
    });

    it("keeps whom a delegate answered for (`answeredFor`), and leaves it out when nobody's delegate answered", async () => {
      await parked('c1');
      await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        settle: [allow('c1-a', { resolvedBy: 'ada', answeredFor: 'grace', channel: 'api' })],
      });
      expect(await store.getAction('c1', 'c1-a')).toMatchObject({ resolvedBy: 'ada', answeredFor: 'grace' });
      expect((await store.listActions('c1'))[0].answeredFor).toBe('grace');
      await parked('c2');
      await commitOk({ conversationId: 'c2', expectVersion: 1, settle: [allow('c2-a', { resolvedBy: 'bob' })] });
      expect(await store.getAction('c2', 'c2-a')).not.toHaveProperty('answeredFor');
    });

    it('rejects a duplicate message position or action id, writing nothing', async () => {
      await parked('c1');
      const change = { conversationId: 'c1', expectVersion: 1, events: [event('turn.started', 5)] };
      await expect(store.commit({ ...change, messages: [message('c1', 1)] })).rejects.toThrow();
      await expect(store.commit({ ...change, actions: [action('c1', 'c1-a')] })).rejects.toThrow();
      await nothingWritten('c1', 1, 1, 2, 1);
    });

    it('a change holding a value that cannot be written (nested far too deep) throws and writes nothing of it', async () => {
      await parked('c1');
      let deep: JsonValue = 'bottom';
      for (let level = 0; level < 100_000; level++) deep = [deep];
      const change: Change = {
        conversationId: 'c1',
        expectVersion: 1,
        set: { status: 'running' },
        messages: [message('c1', 2)],
        settle: [allow('c1-a', { resolution: { type: 'approval', decision: 'allow', approvedArgs: deep } })],
        events: [event('action.resolved', 20)],
      };
      await expect(store.commit(change)).rejects.toThrow();
      await nothingWritten('c1', 1, 1, 2, 1);
      expect(await store.getAction('c1', 'c1-a')).toEqual(action('c1', 'c1-a'));
      expect((await store.getConversation('c1'))?.status).toBe('requires_action');
    });

    it("lists a conversation's actions oldest first, ties by id", async () => {
      await commitOk({
        conversationId: 'c1',
        create: conversation('c1'),
        actions: [
          action('c1', 'b', { createdAt: at(5) }),
          action('c1', 'c', { createdAt: at(3) }),
          action('c1', 'a', { createdAt: at(5) }),
        ],
      });
      expect((await store.listActions('c1')).map((a) => a.id)).toEqual(['c', 'a', 'b']);
    });

    it('lists messages in position order', async () => {
      await commitOk({
        conversationId: 'c1',
        create: conversation('c1'),
        messages: [message('c1', 2), message('c1', 0)],
      });
      await commitOk({ conversationId: 'c1', expectVersion: 1, messages: [message('c1', 3), message('c1', 1)] });
      expect((await store.listMessages('c1')).map((m) => m.position)).toEqual([0, 1, 2, 3]);
    });

    it('reads a conversation with the parts asked for, each as its own list method returns it', async () => {
      const other = action('c1', 'b', {
        createdAt: at(3),
        status: 'resolved',
        resolution: { type: 'approval', decision: 'deny' },
        resolvedBy: 'ada',
        channel: 'api',
        resolvedAt: at(4),
      });
      await commitOk({
        conversationId: 'c1',
        create: conversation('c1', { metadata: { plan: 'pro' } }),
        messages: [message('c1', 1, { role: 'assistant', metadata: { intake: true } }), message('c1', 0)],
        actions: [action('c1', 'a'), other],
        remember: [
          { toolName: 'send_email', rememberedBy: null, rememberedAt: at(5) },
          { toolName: 'issue_refund', rememberedBy: 'ada', rememberedAt: at(6) },
        ],
      });
      await commitOk({
        conversationId: 'c2',
        create: conversation('c2'),
        messages: [message('c2', 0)],
        actions: [action('c2', 'x')],
      });
      const whole = must(
        await store.readConversation('c1', { messages: true, actions: true, remembered: true }),
        'Conversation c1 was just written.',
      );
      expect(whole).toEqual({
        conversation: await store.getConversation('c1'),
        messages: await store.listMessages('c1'),
        actions: await store.listActions('c1'),
        remembered: await store.listRememberedTools('c1'),
      });
      expect(whole.messages?.map((m) => m.position)).toEqual([0, 1]);
      expect(whole.actions?.map((a) => a.id)).toEqual(['b', 'a']);
      expect(whole.remembered?.map((r) => r.toolName)).toEqual(['issue_refund', 'send_email']);
      expect(await store.readConversation('c1', { actions: true })).toEqual({
        conversation: whole.conversation,
        actions: whole.actions,
      });
      expect(await store.readConversation('c1', {})).toEqual({ conversation: whole.conversation });
      // The messages when the action named is the one pending: an answer to it closes the pause.
      expect(await store.readConversation('c1', { actions: true, messagesWhenClosing: 'a' })).toEqual({
        conversation: whole.conversation,
        messages: whole.messages,
        actions: whole.actions,
      });
      expect(await store.readConversation('c1', { messagesWhenClosing: 'a' })).toEqual({
        conversation: whole.conversation,
        messages: whole.messages,
      });
      for (const settled of ['b', 'nope'])
        expect(await store.readConversation('c1', { messagesWhenClosing: settled })).toEqual({
          conversation: whole.conversation,
        });
      await commitOk({ conversationId: 'c2', expectVersion: 1, actions: [action('c2', 'y')] });
      expect(await store.readConversation('c2', { messagesWhenClosing: 'x' })).toEqual({
        conversation: await store.getConversation('c2'),
      });
      expect(await store.readConversation('c3', { messages: true, actions: true, remembered: true })).toBeUndefined();
      await commitOk({ conversationId: 'c3', create: conversation('c3') });
      expect(await store.readConversation('c3', { messages: true, actions: true, remembered: true })).toEqual({
        conversation: await store.getConversation('c3'),
        messages: [],
        actions: [],
        remembered: [],
      });
    });

    it('lists messages a page at a time, newest page first, each in position order', async () => {
      await commitOk({
        conversationId: 'c1',
        create: conversation('c1'),
        messages: [0, 1, 2, 3, 4].map((n) => message('c1', n)),
      });
      await commitOk({ conversationId: 'c2', create: conversation('c2'), messages: [message('c2', 0)] });
      const positions = async (page: { before?: string; limit?: number }) =>
        (await store.listMessages('c1', page)).map((m) => m.position);
      expect(await positions({ limit: 2 })).toEqual([3, 4]);
      expect(await positions({ before: 'c1-m3', limit: 2 })).toEqual([1, 2]);
      expect(await positions({ before: 'c1-m1', limit: 2 })).toEqual([0]);
      expect(await positions({ before: 'c1-m0', limit: 2 })).toEqual([]);
      expect(await positions({ limit: 10 })).toEqual([0, 1, 2, 3, 4]);
      expect(await positions({ before: 'c1-m2' })).toEqual([0, 1]);
      // An id that is not a message of this conversation selects none.
      expect(await positions({ before: 'c2-m0', limit: 2 })).toEqual([]);
      expect(await store.listMessages('missing', { limit: 2 })).toEqual([]);
    });

    it('lists pending actions across conversations oldest first, by owner, in pages', async () => {
      await parked('c1', { ownerId: 'ada' }, { createdAt: at(30) });
      await parked('c2', { ownerId: 'bob' }, { createdAt: at(10) });
      await parked('c3', { ownerId: null }, { createdAt: at(20) });
      await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        actions: [
          action('c1', 'c1-b', { createdAt: at(5) }),
          action('c1', 'c1-c', { createdAt: at(30) }),
          action('c1', 'c1-done', { createdAt: at(1) }),
        ],
        settle: [allow('c1-done')],
      });
      const ids = (actions: ActionRecord[]) => actions.map((a) => a.id);
      expect(ids(await store.listPendingActions({}))).toEqual(['c1-b', 'c2-a', 'c3-a', 'c1-a', 'c1-c']);
      expect(ids(await store.listPendingActions({ ownerId: 'ada' }))).toEqual(['c1-b', 'c1-a', 'c1-c']);
      expect(ids(await store.listPendingActions({ ownerId: null }))).toEqual(['c3-a']);
      expect(ids(await store.listPendingActions({ ownerId: 'nobody' }))).toEqual([]);
      const page1 = await store.listPendingActions({ limit: 2 });
      expect(ids(page1)).toEqual(['c1-b', 'c2-a']);
      const last = page1[1];
      expect(
        ids(await store.listPendingActions({ limit: 2, after: { createdAt: last.createdAt, id: last.id } })),
      ).toEqual(['c3-a', 'c1-a']);
      expect(ids(await store.listPendingActions({ ownerId: 'ada', after: { createdAt: at(30), id: 'c1-a' } }))).toEqual(
        ['c1-c'],
      );
      expect((await store.listPendingActions({ ownerId: 'bob' }))[0]).toEqual(
        action('c2', 'c2-a', { createdAt: at(10) }),
      );
    });

    it('finds an action of any conversation by its id alone, pending or settled', async () => {
      await parked('c1');
      await parked('c2', {}, { createdAt: at(12) });
      await commitOk({ conversationId: 'c2', expectVersion: 1, settle: [allow('c2-a')] });
      expect(await store.findAction('c1-a')).toEqual(action('c1', 'c1-a'));
      expect(await store.findAction('c2-a')).toMatchObject({
        conversationId: 'c2',
        status: 'resolved',
        resolvedBy: 'ada',
      });
      expect(await store.findAction('nowhere')).toBeUndefined();
    });

    it('counts pending actions by agent and kind with their ages, and lists the times people took to decide', async () => {
      const day = 86_400;
      await parked('c1', {}, { createdAt: at(0) });
      await parked('c2', { agent: 'billing' }, { createdAt: at(2 * day) });
      await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        actions: [
          action('c1', 'c1-q', {
            kind: 'question',
            createdAt: at(4 * day),
            request: { kind: 'question', questions: [{ id: 'q', header: 'Q', prompt: 'Which?', options: [] }] },
          }),
          action('c1', 'c1-b', { createdAt: at(5 * day) }),
          action('c1', 'c1-done', { createdAt: at(100) }),
          action('c1', 'c1-lapsed', { createdAt: at(100) }),
          action('c1', 'c1-slack', { createdAt: at(300) }),
        ],
        settle: [
          allow('c1-done', { resolvedAt: at(160) }),
          allow('c1-lapsed', { channel: 'timeout', resolvedBy: null, resolvedAt: at(200) }),
          allow('c1-slack', { channel: 'slack', resolvedAt: at(900) }),
        ],
      });
      // At 8 days: c1-a waited 8 days, c2-a 6, c1-q 4, c1-b 3.
      expect(await store.countPending(at(8 * day))).toEqual([
        {
          agent: 'billing',
          kind: 'approval',
          count: 1,
          oldestCreatedAt: at(2 * day),
          over1Day: 1,
          over3Days: 1,
          over7Days: 0,
        },
        {
          agent: 'support',
          kind: 'approval',
          count: 2,
          oldestCreatedAt: at(0),
          over1Day: 2,
          over3Days: 1,
          over7Days: 1,
        },
        {
          agent: 'support',
          kind: 'question',
          count: 1,
          oldestCreatedAt: at(4 * day),
          over1Day: 1,
          over3Days: 1,
          over7Days: 0,
        },
      ]);
      // A lapse is not a decision; newest first; `since` and `limit` bound the read.
      expect(await store.listDecisionTimes(at(0), 10)).toEqual([
        { agent: 'support', kind: 'approval', channel: 'slack', createdAt: at(300), resolvedAt: at(900) },
        { agent: 'support', kind: 'approval', channel: 'api', createdAt: at(100), resolvedAt: at(160) },
      ]);
      expect(await store.listDecisionTimes(at(500), 10)).toHaveLength(1);
      expect(await store.listDecisionTimes(at(0), 1)).toHaveLength(1);
    });

    it("revises a pending action's request (a vote) with compare-and-set, and refuses a settled one, writing nothing", async () => {
      await parked('c1');
      const voted = {
        kind: 'approval' as const,
        args: { orderId: 42, amount: 5 },
        title: 'Refund',
        summary: 'Refund 5 on order 42',
        canRemember: false,
        approvers: ['bob', 'cat'],
        required: 2,
        votes: [{ by: 'bob', decision: 'allow' as const, at: at(15) }],
      };
      const revised = await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        revise: [{ id: 'c1-a', request: voted, reason: 'vote' }],
        events: [event('action.voted', 15)],
      });
      expect(revised.conversation.version).toBe(2);
      expect(await store.getAction('c1', 'c1-a')).toEqual(action('c1', 'c1-a', { request: voted }));
      expect((await store.listEvents('c1')).map((e) => e.type)).toEqual(['action.required', 'action.voted']);
      // A second vote computed from the same version loses, and writes nothing.
      const stale = await store.commit({
        conversationId: 'c1',
        expectVersion: 1,
        revise: [{ id: 'c1-a', request: { ...voted, votes: [] }, reason: 'vote' }],
      });
      expect(stale).toEqual({ ok: false, reason: 'version' });
      await commitOk({ conversationId: 'c1', expectVersion: 2, settle: [allow('c1-a')] });
      const late = await store.commit({
        conversationId: 'c1',
        expectVersion: 3,
        revise: [{ id: 'c1-a', request: { ...voted, votes: [] }, reason: 'vote' }],
        events: [event('action.voted', 16)],
      });
      expect(late).toEqual({ ok: false, reason: 'action_not_pending' });
      await nothingWritten('c1', 3, 2, 2, 1);
      expect((await store.getAction('c1', 'c1-a'))?.request).toEqual(voted);
      expect(
        await store.commit({
          conversationId: 'c1',
          expectVersion: 3,
          revise: [{ id: 'nope', request: voted, reason: 'vote' }],
        }),
      ).toEqual({
        ok: false,
        reason: 'action_not_pending',
      });
    });

    it("keeps an action's reminders still to send, and moves its deadline and reminders with a revision", async () => {
      await parked('c1', {}, { remindAt: [at(82_800), at(85_800)] });
      expect((await store.getAction('c1', 'c1-a'))?.remindAt).toEqual([at(82_800), at(85_800)]);
      expect((await store.readConversation('c1', { actions: true }))?.actions?.[0].remindAt).toEqual([
        at(82_800),
        at(85_800),
      ]);
      const request = (await store.getAction('c1', 'c1-a'))!.request;
      // A reminder sent: the first time is taken off, the deadline stays.
      await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        revise: [{ id: 'c1-a', request, reason: 'reminder', remindAt: [at(85_800)] }],
      });
      expect(await store.getAction('c1', 'c1-a')).toEqual(action('c1', 'c1-a', { remindAt: [at(85_800)] }));
      // An extension: a new deadline and new reminders; the last reminder sent leaves none.
      await commitOk({
        conversationId: 'c1',
        expectVersion: 2,
        revise: [{ id: 'c1-a', request, reason: 'extension', expiresAt: at(90_000), remindAt: [at(89_400)] }],
      });
      expect(await store.getAction('c1', 'c1-a')).toEqual(
        action('c1', 'c1-a', { expiresAt: at(90_000), remindAt: [at(89_400)] }),
      );
      await commitOk({
        conversationId: 'c1',
        expectVersion: 3,
        revise: [{ id: 'c1-a', request, reason: 'extension', expiresAt: null, remindAt: [] }],
      });
      expect(await store.getAction('c1', 'c1-a')).toEqual(action('c1', 'c1-a', { expiresAt: null }));
    });

    it('lists pending actions of the owner together with those naming the user among their approvers', async () => {
      const named = {
        kind: 'approval' as const,
        args: {},
        title: 'Pay',
        summary: 'Pay',
        canRemember: false,
        approvers: ['bob', 'cat'],
        required: 1,
      };
      await parked('c1', { ownerId: 'ada' }, { createdAt: at(30), request: named });
      await parked('c2', { ownerId: 'bob' }, { createdAt: at(10) });
      await parked('c3', { ownerId: 'dan' }, { createdAt: at(20) });
      const ids = (actions: ActionRecord[]) => actions.map((a) => a.id);
      expect(ids(await store.listPendingActions({ ownerId: 'bob', approver: 'bob' }))).toEqual(['c2-a', 'c1-a']);
      expect(ids(await store.listPendingActions({ ownerId: 'cat', approver: 'cat' }))).toEqual(['c1-a']);
      expect(ids(await store.listPendingActions({ ownerId: 'dan', approver: 'dan' }))).toEqual(['c3-a']);
      expect(
        ids(
          await store.listPendingActions({
            ownerId: 'bob',
            approver: 'bob',
            limit: 1,
            after: { createdAt: at(10), id: 'c2-a' },
          }),
        ),
      ).toEqual(['c1-a']);
      await commitOk({ conversationId: 'c1', expectVersion: 1, settle: [allow('c1-a')] });
      expect(ids(await store.listPendingActions({ ownerId: 'cat', approver: 'cat' }))).toEqual([]);
    });

    it('lists pending actions naming one of the groups of the user among their approvers', async () => {
      const named = (approvers: string[]) => ({
        kind: 'approval' as const,
        args: {},
        title: 'Pay',
        summary: 'Pay',
        canRemember: false,
        approvers,
        required: 1,
      });
      await parked('c1', { ownerId: 'ada' }, { createdAt: at(10), request: named(['group:ops', 'bob']) });
      await parked('c2', { ownerId: 'ada' }, { createdAt: at(20), request: named(['group:finance']) });
      await parked('c3', { ownerId: 'ada' }, { createdAt: at(30), request: named(['group:ops-team']) });
      const ids = (actions: ActionRecord[]) => actions.map((a) => a.id);
      const list = (approver: string, groups?: string[]) =>
        store.listPendingActions({ ownerId: approver, approver, ...(groups ? { groups } : {}) });
      expect(ids(await list('cat', ['ops']))).toEqual(['c1-a']);
      expect(ids(await list('cat', ['ops', 'finance']))).toEqual(['c1-a', 'c2-a']);
      expect(ids(await list('cat', []))).toEqual([]);
      expect(ids(await list('cat'))).toEqual([]);
      expect(ids(await list('bob', ['finance']))).toEqual(['c1-a', 'c2-a']);
      // A user id that reads like a group entry is no member of it.
      expect(ids(await list('group:ops'))).toEqual([]);
    });

    it('lists conversations newest first, filtered by owner, status and agent, in pages', async () => {
      await commitOk({ conversationId: 'c1', create: conversation('c1', { ownerId: 'ada', updatedAt: at(10) }) });
      await commitOk({
        conversationId: 'c2',
        create: conversation('c2', { ownerId: 'bob', updatedAt: at(30), status: 'requires_action' }),
      });
      await commitOk({
        conversationId: 'c3',
        create: conversation('c3', { ownerId: null, updatedAt: at(20), agent: 'sales' }),
      });
      await commitOk({
        conversationId: 'c4',
        create: conversation('c4', { ownerId: 'ada', updatedAt: at(20), status: 'requires_action' }),
      });
      const ids = (list: ConversationRecord[]) => list.map((c) => c.id);
      expect(ids(await store.listConversations({}))).toEqual(['c2', 'c4', 'c3', 'c1']);
      expect(ids(await store.listConversations({ ownerId: 'ada' }))).toEqual(['c4', 'c1']);
      expect(ids(await store.listConversations({ ownerId: null }))).toEqual(['c3']);
      expect(ids(await store.listConversations({ status: 'requires_action' }))).toEqual(['c2', 'c4']);
      expect(ids(await store.listConversations({ agent: 'sales' }))).toEqual(['c3']);
      expect(ids(await store.listConversations({ ownerId: 'ada', status: 'idle', agent: 'support' }))).toEqual(['c1']);
      expect(ids(await store.listConversations({ limit: 2 }))).toEqual(['c2', 'c4']);
      expect(ids(await store.listConversations({ limit: 2, before: { updatedAt: at(20), id: 'c4' } }))).toEqual([
        'c3',
        'c1',
      ]);
      await commitOk({ conversationId: 'c1', expectVersion: 1, set: { updatedAt: at(40) } });
      expect(ids(await store.listConversations({ ownerId: 'ada' }))).toEqual(['c1', 'c4']);
      for (let i = 0; i < 51; i++)
        await commitOk({ conversationId: `x${i}`, create: conversation(`x${i}`, { ownerId: 'many' }) });
      expect(await store.listConversations({ ownerId: 'many' })).toHaveLength(50);
    });

    it('searches conversations by title or agent name, ignoring case, with the text taken as written', async () => {
      const titled = (id: string, title: unknown, fields: Partial<ConversationRecord> = {}) =>
        commitOk({
          conversationId: id,
          create: conversation(id, { metadata: { title: title as JsonValue, other: 'refund' }, ...fields }),
        });
      await titled('t1', 'Refund for order 1042', { updatedAt: at(10) });
      await titled('t2', 'Where is my PARCEL?', { updatedAt: at(20) });
      await titled('t3', 'Discount of 50% off_peak', { updatedAt: at(30) });
      await titled('t4', 42, { updatedAt: at(40) });
      await titled('t5', 'refund, again', { updatedAt: at(50), ownerId: 'bob' });
      await commitOk({
        conversationId: 't6',
        create: conversation('t6', { agent: 'Refunds-desk', updatedAt: at(60) }),
      });
      const ids = (list: ConversationRecord[]) => list.map((c) => c.id);
      expect(ids(await store.listConversations({ search: 'refund' }))).toEqual(['t6', 't5', 't1']);
      expect(ids(await store.listConversations({ search: 'REFUND', ownerId: 'ada' }))).toEqual(['t6', 't1']);
      expect(ids(await store.listConversations({ search: 'parcel' }))).toEqual(['t2']);
      // "%" and "_" are characters, not wildcards; a number is no title; other metadata is not searched.
      expect(ids(await store.listConversations({ search: '50% off_' }))).toEqual(['t3']);
      expect(ids(await store.listConversations({ search: '%' }))).toEqual(['t3']);
      expect(ids(await store.listConversations({ search: '_' }))).toEqual(['t3']);
      expect(ids(await store.listConversations({ search: '42' }))).toEqual(['t1']);
      expect(ids(await store.listConversations({ search: 'other' }))).toEqual([]);
      expect(ids(await store.listConversations({ search: 'support', limit: 2 }))).toEqual(['t5', 't4']);
    });

    it('lists due conversations: lapsed actions and lapsed leases, not future ones or idle ones', async () => {
      await parked('due', {}, {});
      await commitOk({ conversationId: 'due', expectVersion: 1, set: { actionDueAt: at(100) } });
      await parked('due-now', { actionDueAt: at(200) });
      await parked('future', { actionDueAt: at(10_000) });
      await commitOk({
        conversationId: 'lapsed',
        create: conversation('lapsed', { status: 'running', leaseOwner: 'i1', leaseExpiresAt: at(50) }),
      });
      const leased = conversation('leased', { status: 'running', leaseOwner: 'i2', leaseExpiresAt: at(10_000) });
      await commitOk({ conversationId: 'leased', create: leased });
      await commitOk({
        conversationId: 'idle',
        create: conversation('idle', { leaseOwner: 'i3', leaseExpiresAt: at(10) }),
      });
      await commitOk({ conversationId: 'quiet', create: conversation('quiet') });
      const ids = async (now: string, limit = 10) => (await store.listDue(now, limit)).map((c) => c.id);
      expect(await ids(at(200))).toEqual(['lapsed', 'due', 'due-now']);
      expect(await ids(at(200), 2)).toEqual(['lapsed', 'due']);
      expect(await ids(at(40))).toEqual([]);
      expect(await ids(at(20_000))).toEqual(['lapsed', 'due', 'due-now', 'future', 'leased']);
      expect((await store.listDue(at(200), 10))[0]).toEqual(await store.getConversation('lapsed'));
    });

    it('remembers tools (upserting), lists and forgets them without bumping the version', async () => {
      await parked('c1');
      const tools: RememberedTool[] = [
        { toolName: 'send_email', rememberedBy: 'ada', rememberedAt: at(20) },
        { toolName: 'issue_refund', rememberedBy: 'ada', rememberedAt: at(21) },
      ];
      await commitOk({ conversationId: 'c1', expectVersion: 1, remember: tools });
      expect(await store.listRememberedTools('c1')).toEqual([tools[1], tools[0]]);
      const again = { toolName: 'issue_refund', rememberedBy: 'bob', rememberedAt: at(30) };
      await commitOk({ conversationId: 'c1', expectVersion: 2, remember: [again] });
      expect(await store.listRememberedTools('c1')).toEqual([again, tools[0]]);
      expect(await store.forgetTool('c1', 'issue_refund')).toBe(true);
      expect(await store.forgetTool('c1', 'issue_refund')).toBe(false);
      expect(await store.forgetTool('missing', 'issue_refund')).toBe(false);
      expect(await store.listRememberedTools('c1')).toEqual([tools[0]]);
      expect((await store.getConversation('c1'))?.version).toBe(3);
      expect(await store.listRememberedTools('missing')).toEqual([]);
    });

    it('hands out copies: mutating a record given or returned changes nothing stored', async () => {
      const tags = ['a'];
      const record = conversation('c1', { metadata: { tags } });
      const msg = message('c1', 0);
      const act = action('c1', 'a1');
      const data = { list: [1] };
      const result = await commitOk({
        conversationId: 'c1',
        create: record,
        messages: [msg],
        actions: [act],
        events: [event('turn.started', 1, data)],
      });
      record.status = 'running';
      tags.push('given');
      msg.parts.push({ type: 'text', text: 'given' });
      (act.request as { title: string }).title = 'given';
      data.list.push(2);
      result.conversation.agent = 'returned';
      (result.events[0].data.list as number[]).push(3);

      const stored = must(await store.getConversation('c1'), 'Conversation c1 was just written.');
      must(stored.metadata, 'Conversation c1 was written with metadata.').tags = [];
      (await store.listMessages('c1'))[0].parts.length = 0;
      must(await store.getAction('c1', 'a1'), 'Action a1 was just written.').request.kind = 'url';
      (await store.listActions('c1'))[0].status = 'expired';
      (await store.listPendingActions({}))[0].status = 'expired';
      (await store.listEvents('c1'))[0].data.list = [];
      (await store.listConversations({}))[0].agent = 'listed';

      expect(await store.getConversation('c1')).toEqual(
        conversation('c1', { metadata: { tags: ['a'] }, lastEventSeq: 1 }),
      );
      expect(await store.listMessages('c1')).toEqual([message('c1', 0)]);
      expect(await store.listActions('c1')).toEqual([action('c1', 'a1')]);
      expect((await store.listEvents('c1'))[0].data).toEqual({ list: [1] });
    });

    it('keeps everything across a reopen (a restart)', async ({ skip }) => {
      if (!opened.reopen) return skip();
      await parked('c1', { ownerId: 'ada', metadata: { k: 'v' } });
      await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        settle: [allow('c1-a')],
        events: [event('action.resolved', 20)],
        remember: [{ toolName: 'issue_refund', rememberedBy: 'ada', rememberedAt: at(20) }],
      });
      const snapshot = async () => ({
        conversation: await store.getConversation('c1'),
        messages: await store.listMessages('c1'),
        actions: await store.listActions('c1'),
        events: await store.listEvents('c1'),
        tools: await store.listRememberedTools('c1'),
      });
      const before = await snapshot();
      await store.close();
      store = await opened.reopen();
      await store.migrate();
      expect(await snapshot()).toEqual(before);
      expect(
        (await commitOk({ conversationId: 'c1', expectVersion: 2, events: [event('turn.completed', 30)] })).events[0]
          .seq,
      ).toBe(3);
    });

    // ------------------------------------------------------------ the outbox (docs/notifications.md)

    const delivery = (id: string, fields: Partial<NewDelivery> = {}): NewDelivery => ({
      id,
      event: 'action.required',
      actionId: 'c1-a',
      target: { type: 'webhook', url: 'https://hooks.example/x' },
      createdAt: at(10),
      ...fields,
    });

    it('writes deliveries with the change that causes them, and none with a refused one', async () => {
      await parked('c1');
      await commitOk({
        conversationId: 'c1',
        expectVersion: 1,
        settle: [allow('c1-a')],
        deliveries: [delivery('d1', { event: 'action.resolved', createdAt: at(20) })],
      });
      // A stale version and an action no longer pending: both refused, neither writes its delivery.
      expect(await store.commit({ conversationId: 'c1', expectVersion: 1, deliveries: [delivery('d2')] })).toEqual({
        ok: false,
        reason: 'version',
      });
      expect(
        await store.commit({
          conversationId: 'c1',
          expectVersion: 2,
          settle: [allow('c1-a')],
          deliveries: [delivery('d3')],
        }),
      ).toEqual({
        ok: false,
        reason: 'action_not_pending',
      });
      expect(
        await store.commit({
          conversationId: 'c2',
          create: conversation('c2'),
          deliveries: [delivery('d4', { target: { type: 'email', to: 'ada@example.com' } })],
        }),
      ).toMatchObject({ ok: true });
      expect(await store.listDeliveries({})).toEqual([
        {
          id: 'd4',
          conversationId: 'c2',
          event: 'action.required',
          actionId: 'c1-a',
          target: { type: 'email', to: 'ada@example.com' },
          createdAt: at(10),
          status: 'pending',
          attempts: 0,
          dueAt: at(10),
          lastError: null,
          finishedAt: null,
          receipt: null,
        },
        {
          id: 'd1',
          conversationId: 'c1',
          event: 'action.resolved',
          actionId: 'c1-a',
          target: { type: 'webhook', url: 'https://hooks.example/x' },
          createdAt: at(20),
          status: 'pending',
          attempts: 0,
          dueAt: at(20),
          lastError: null,
          finishedAt: null,
          receipt: null,
        },
      ]);
    });

    it('claims due deliveries once until the claim runs out, retries them later, and lists them by status', async () => {
      await commitOk({
        conversationId: 'c1',
        create: conversation('c1'),
        deliveries: [delivery('d1'), delivery('d2', { createdAt: at(11) }), delivery('d3', { createdAt: at(500) })],
      });
      expect(await store.claimDeliveries(at(5), at(65), 10)).toEqual([]);
      // Two claimers at once take different rows.
      const [first, second] = await Promise.all([
        store.claimDeliveries(at(100), at(160), 1),
        store.claimDeliveries(at(100), at(160), 1),
      ]);
      expect([...first, ...second].map((d) => d.id).sort()).toEqual(['d1', 'd2']);
      expect(first[0]).toMatchObject({ attempts: 1, dueAt: at(160), status: 'pending' });
      expect(await store.claimDeliveries(at(120), at(180), 10)).toEqual([]);
      // d1 fails and is retried later; d2's claim runs out (its process died) and it is claimed again.
      await store.finishDelivery('d1', { status: 'pending', dueAt: at(400), error: 'HTTP 503' });
      const again = await store.claimDeliveries(at(200), at(260), 10);
      expect(again.map((d) => [d.id, d.attempts])).toEqual([['d2', 2]]);
      await store.finishDelivery('d2', { status: 'delivered', at: at(201) });
      expect((await store.claimDeliveries(at(400), at(460), 10)).map((d) => d.id)).toEqual(['d1']);
      await store.finishDelivery('d1', { status: 'failed', at: at(401), error: 'HTTP 500' });
      expect(await store.listDeliveries({ status: 'failed' })).toEqual([
        {
          id: 'd1',
          conversationId: 'c1',
          event: 'action.required',
          actionId: 'c1-a',
          target: { type: 'webhook', url: 'https://hooks.example/x' },
          createdAt: at(10),
          status: 'failed',
          attempts: 2,
          dueAt: null,
          lastError: 'HTTP 500',
          finishedAt: at(401),
          receipt: null,
        },
      ]);
      expect(await store.listDeliveries({ status: 'delivered' })).toMatchObject([
        { id: 'd2', lastError: null, finishedAt: at(201) },
      ]);
      expect(
        (await store.listDeliveries({ after: { createdAt: at(10), id: 'd1' }, limit: 1 })).map((d) => d.id),
      ).toEqual(['d2']);
      expect((await store.claimDeliveries(at(1000), at(1060), 10)).map((d) => d.id)).toEqual(['d3']);
    });

    it('keeps what the receiver answered, and finds deliveries by their action', async () => {
      await commitOk({
        conversationId: 'c1',
        create: conversation('c1'),
        deliveries: [
          delivery('d1', { target: { type: 'channel', channel: 'slack:T1:C1:1.2' } }),
          delivery('d2', { actionId: 'c1-b' }),
        ],
      });
      await store.claimDeliveries(at(100), at(160), 10);
      await store.finishDelivery('d1', { status: 'delivered', at: at(101), receipt: { ts: '1700000000.000200' } });
      await store.finishDelivery('d2', { status: 'delivered', at: at(102) });
      expect(await store.listDeliveries({ actionId: 'c1-a' })).toMatchObject([
        {
          id: 'd1',
          target: { type: 'channel', channel: 'slack:T1:C1:1.2' },
          status: 'delivered',
          receipt: { ts: '1700000000.000200' },
        },
      ]);
      expect(await store.listDeliveries({ actionId: 'c1-b' })).toMatchObject([{ id: 'd2', receipt: null }]);
      expect(await store.listDeliveries({ actionId: 'nope' })).toEqual([]);
    });

    it('makes a secret once and keeps it (across a reopen too)', async () => {
      const secret = await store.secret('link');
      expect(secret.length).toBeGreaterThanOrEqual(32);
      expect(await store.secret('link')).toBe(secret);
      expect(await store.secret('other')).not.toBe(secret);
      if (!opened.reopen) return;
      await store.close();
      store = await opened.reopen();
      await store.migrate();
      expect(await store.secret('link')).toBe(secret);
    });

    it("keeps an adapter's values by scope and key, in key order (across a reopen too)", async () => {
      await store.putValues([
        { scope: 'thread-1', key: 'b', value: '{"n":2}' },
        { scope: 'thread-1', key: 'a', value: '{"n":1}' },
        { scope: 'thread-2', key: 'a', value: 'other' },
      ]);
      await store.putValues([{ scope: 'thread-1', key: 'b', value: '{"n":3}' }]);
      expect(await store.listValues('thread-1')).toEqual([
        { key: 'a', value: '{"n":1}' },
        { key: 'b', value: '{"n":3}' },
      ]);
      await store.putValues([]);
      await store.deleteValues('thread-1', ['a', 'missing']);
      expect(await store.listValues('thread-1')).toEqual([{ key: 'b', value: '{"n":3}' }]);
      if (opened.reopen) {
        await store.close();
        store = await opened.reopen();
        await store.migrate();
        expect(await store.listValues('thread-1')).toEqual([{ key: 'b', value: '{"n":3}' }]);
      }
      await store.deleteValues('thread-1');
      expect(await store.listValues('thread-1')).toEqual([]);
      expect(await store.listValues('thread-2')).toEqual([{ key: 'a', value: 'other' }]);
    });

    it('swaps a value only from the one expected: set when absent, replace, remove; a stale expectation changes nothing', async () => {
      expect(await store.swapValue('s', 'k', null, null)).toBe(true);
      expect(await store.swapValue('s', 'k', null, 'one')).toBe(true);
      expect(await store.swapValue('s', 'k', null, 'again')).toBe(false);
      expect(await store.swapValue('s', 'k', null, null)).toBe(false);
      expect(await store.swapValue('s', 'k', 'stale', 'two')).toBe(false);
      expect(await store.listValues('s')).toEqual([{ key: 'k', value: 'one' }]);
      expect(await store.swapValue('s', 'k', 'one', 'two')).toBe(true);
      expect(await store.swapValue('s', 'k', 'one', null)).toBe(false);
      expect(await store.swapValue('s', 'k', 'two', null)).toBe(true);
      expect(await store.listValues('s')).toEqual([]);
      // Many claims of one key at once: exactly one wins.
      const wins = await Promise.all(Array.from({ length: 8 }, (_, i) => store.swapValue('s', 'race', null, `${i}`)));
      expect(wins.filter(Boolean)).toHaveLength(1);
    });
  });
  describeUpkeepContract(name, open);
}
