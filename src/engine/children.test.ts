import { describe, expect, it } from 'vitest';
import { memoryStore } from '../store/memory/memory-store.js';
import type { ConversationRecord } from '../types.js';
import { ancestorsOf, childConversationId, rootOf } from './children.js';
import { newConversationRecord } from './engine.js';

/** A conversation `depth` calls below `parent` (none: one a person started), stored. */
async function stored(store: ReturnType<typeof memoryStore>, parent?: ConversationRecord): Promise<ConversationRecord> {
  const depth = parent ? ((parent.metadata?.parent as { depth?: number } | undefined)?.depth ?? 0) + 1 : 0;
  const id = parent ? childConversationId(parent.id, `call_${depth}`) : 'c_lead';
  const record = newConversationRecord({
    id,
    agent: parent ? `agent${depth}` : 'lead',
    ownerId: 'ada',
    channel: null,
    metadata: parent ? { parent: { conversationId: parent.id, toolCallId: `call_${depth}`, depth } } : null,
    createdAt: new Date().toISOString(),
  });
  const result = await store.commit({ conversationId: id, create: record });
  if (!result.ok) throw new Error(result.reason);
  return result.conversation;
}

describe('a child conversation’s parents', () => {
  it('are walked up to the lead at any depth, and the lead is the root', async () => {
    const store = memoryStore();
    await store.migrate();
    const lead = await stored(store);
    const one = await stored(store, lead);
    const two = await stored(store, one);
    const three = await stored(store, two);
    expect((await ancestorsOf(store, three)).map((c) => c.id)).toEqual([two.id, one.id, lead.id]);
    expect((await rootOf(store, three)).id).toBe(lead.id);
    expect((await rootOf(store, one)).id).toBe(lead.id);
    expect(await ancestorsOf(store, lead)).toEqual([]);
    expect((await rootOf(store, lead)).id).toBe(lead.id);
  });
});
