/**
 * Shared by the retention tests (docs/operating.md#retention): 10,000 finished conversations and 100 paused
 * ones in one store, the sweep left to run with `retention` on, then every paused one answered.
 */
import { expect } from 'vitest';
import { z } from 'zod';
import { createHeed, type Heed } from '../src/heed.js';
import type { Store } from '../src/store/store.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import { tool } from '../src/tool.js';

const DAY_MS = 86_400_000;

export const FINISHED = 10_000;
export const PAUSED = 100;

function heedOn(store: Store, sweepIntervalMs: number): Heed {
  const model = scriptedModel(async ({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? { text: 'Done.' }
      : { toolCalls: [{ toolName: 'refund', input: { amount: 5 } }] },
  );
  return createHeed({
    store,
    sweepIntervalMs,
    retention: { finishedDays: 30 },
    agents: [
      {
        name: 'support',
        model,
        tools: {
          refund: tool({
            inputSchema: z.object({ amount: z.number() }),
            needsApproval: true,
            execute: async ({ amount }) => ({ refunded: amount }),
          }),
        },
      },
    ],
  });
}

/** Writes the finished conversations straight into the store, last changed 60 days ago, with a message and events each. */
export async function writeFinished(store: Store): Promise<void> {
  const old = new Date(Date.now() - 60 * DAY_MS).toISOString();
  const text = 'a finished conversation, kept only as long as retention says '.repeat(4);
  for (let start = 0; start < FINISHED; start += 100) {
    await Promise.all(
      Array.from({ length: 100 }, (_, offset) => {
        const id = `done_${start + offset}`;
        return store.commit({
          conversationId: id,
          create: {
            id,
            agent: 'support',
            ownerId: 'ada',
            channel: null,
            status: 'idle',
            version: 1,
            metadata: { title: 'Old' },
            createdAt: old,
            updatedAt: old,
            actionDueAt: null,
            leaseOwner: null,
            leaseExpiresAt: null,
            tokensUsed: 0,
            lastEventSeq: 0,
            intakeDone: true,
          },
          messages: [
            {
              id: `${id}_m0`,
              conversationId: id,
              position: 0,
              role: 'user',
              parts: [{ type: 'text', text }],
              metadata: null,
              createdAt: old,
            },
          ],
          events: [
            { type: 'message.created', at: old, data: { messageId: `${id}_m0` } },
            { type: 'turn.completed', at: old, data: {} },
          ],
        });
      }),
    );
  }
}

/** Pauses 100 conversations on an approval each; their ids. */
export async function pauseSome(store: Store): Promise<string[]> {
  const heed = heedOn(store, 0);
  const ids: string[] = [];
  try {
    for (let index = 0; index < PAUSED; index++) {
      const { id } = await heed.createConversation({ agent: 'support', ownerId: 'ada' });
      const result = await heed.conversation(id).send('refund please');
      expect(result.status).toBe('requires_action');
      ids.push(id);
    }
  } finally {
    await heed.close();
  }
  return ids;
}

/**
 * Runs a Heed whose sweep (every 20 ms) applies retention until no finished conversation is left, then answers
 * every paused one. `store` is opened anew for it (the one given before was closed).
 */
export async function sweepThenAnswer(store: Store, paused: string[]): Promise<void> {
  const heed = heedOn(store, 20);
  try {
    await heed.ready();
    await expect
      .poll(async () => (await store.listConversations({ status: 'idle', limit: 1 })).length, { timeout: 120_000 })
      .toBe(0);
    expect(await store.getConversation('done_0')).toBeUndefined();
    expect(await store.listMessages(`done_${FINISHED - 1}`)).toEqual([]);
    for (const id of paused) {
      const [pending] = await heed.conversation(id).pendingActions();
      expect(pending, id).toBeDefined();
      const result = await pending.approve();
      expect(result.status, id).toBe('completed');
    }
  } finally {
    await heed.close();
  }
}
