import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHeed, memoryStore, tool, type AgentConfig, type Heed, type Store } from 'heed';
import { scriptedModel } from 'heed/testing';
import { conversationProblems } from '../../test/invariants.js';

// The first transaction on a conversation this process just created decides from the record the create
// returned instead of reading it back (src/engine/transact.ts); its compare-and-set proves that record
// current, and anything but a write is decided again from a read.

/** A store that counts the snapshots it is asked for. */
function countedStore() {
  const inner = memoryStore();
  const counts = { reads: 0 };
  const store: Store = {
    ...inner,
    async readConversation(id, parts) {
      counts.reads++;
      return inner.readConversation(id, parts);
    },
  };
  return { store, inner, counts };
}

function refunds(): AgentConfig {
  return {
    name: 'support',
    model: scriptedModel(({ stepIndex }) =>
      stepIndex === 0 ? { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42 } }] } : { text: 'Refunded.' },
    ),
    tools: {
      issue_refund: tool({
        inputSchema: z.object({ orderId: z.number() }),
        needsApproval: true,
        execute: async () => ({ refunded: 5 }),
      }),
    },
  };
}

const opened: Heed[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((heed) => heed.close()));
});

describe('the first write to a conversation this process created', () => {
  it('reads no snapshot: the created record is the one it decides from', async () => {
    const { store, inner, counts } = countedStore();
    const heed = createHeed({ agents: [refunds()], store, sweepIntervalMs: 0 });
    opened.push(heed);
    const { id } = await heed.createConversation({ agent: 'support' });
    const paused = await heed.conversation(id).send('refund order 42');
    expect(paused.status).toBe('requires_action');
    expect(counts.reads).toBe(0);
    // The next write reads as before.
    const done = await heed.conversation(id).resolve(paused.pendingActions![0].id, {
      type: 'approval',
      decision: 'allow',
    });
    expect(done.status).toBe('completed');
    expect(counts.reads).toBe(1);
    expect(await conversationProblems(inner, id)).toEqual([]);
  });

  it('written meanwhile by another instance: read and decided again, as if it had been read', async () => {
    const { store, inner, counts } = countedStore();
    const a = createHeed({ agents: [refunds()], store, sweepIntervalMs: 0 });
    const b = createHeed({ agents: [refunds()], store: inner, sweepIntervalMs: 0 });
    opened.push(a, b);

    // B's message paused it: A's message is refused as it would be from a read (an answer is awaited).
    const { id } = await a.createConversation({ agent: 'support' });
    const paused = await b.conversation(id).send('refund order 42');
    expect(paused.status).toBe('requires_action');
    await expect(a.conversation(id).send('and order 43')).rejects.toMatchObject({ code: 'action_pending' });
    expect(counts.reads).toBe(1);

    // B's turn completed: A's message starts a turn after it, on what is stored.
    const { id: other } = await a.createConversation({ agent: 'support' });
    const first = await b.conversation(other).send('refund order 42');
    await b.conversation(other).resolve(first.pendingActions![0].id, { type: 'approval', decision: 'allow' });
    const second = await a.conversation(other).send('refund order 43');
    expect(second.status).toBe('requires_action');
    const messages = await inner.listMessages(other);
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(await conversationProblems(inner, id)).toEqual([]);
    expect(await conversationProblems(inner, other)).toEqual([]);
  });

  it('refused from the created record (another owner): decided again from a read, with the same refusal', async () => {
    const { store, counts } = countedStore();
    const heed = createHeed({ agents: [refunds()], store, sweepIntervalMs: 0 });
    opened.push(heed);
    const { id } = await heed.createConversation({ agent: 'support', ownerId: 'ada' });
    await expect(heed.conversation(id).send('hello', { caller: { userId: 'bob' } })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(counts.reads).toBe(1);
  });
});
