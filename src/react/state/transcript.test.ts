import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createHeed } from '../../heed.js';
import { scriptedModel } from '../../testing/index.js';
import { tool } from '../../tool.js';
import { buildTranscript } from './transcript.js';

// A call an approval guarded, as the transcript shows it once the approval ended, read from a real conversation.
const heed = createHeed({
  sweepIntervalMs: 0,
  agents: [
    {
      name: 'refunds',
      model: scriptedModel(({ messages }) =>
        messages.at(-1)?.role === 'tool'
          ? { text: 'Done.' }
          : { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 30 } }] },
      ),
      tools: {
        issue_refund: tool({
          inputSchema: z.object({ orderId: z.number(), amount: z.number() }),
          needsApproval: true,
          execute: async (input) => ({ refunded: input.amount }),
        }),
      },
    },
  ],
});

async function settled(answer: (conversationId: string, actionId: string) => Promise<unknown>) {
  const conversation = await heed.createConversation({ agent: 'refunds' });
  const turn = await heed.conversation(conversation.id).send('refund order 42');
  await answer(conversation.id, turn.pendingActions![0].id);
  const { messages } = await heed.conversation(conversation.id).get();
  return buildTranscript(messages).find((item) => item.type === 'tool');
}

describe('buildTranscript: a call that needed an approval', () => {
  it('denied: says so, with the comment, instead of reading as a failure', async () => {
    const item = await settled(async (conversationId) =>
      (await heed.conversation(conversationId).pendingActions())[0].decline('Too much for a late parcel.'),
    );
    expect(item).toMatchObject({
      type: 'tool',
      toolName: 'issue_refund',
      output: { type: 'error-text' },
      notRun: { reason: 'denied', comment: 'Too much for a late parcel.' },
    });
  });

  it('allowed: ran, with nothing about not running', async () => {
    const item = await settled(async (conversationId) =>
      (await heed.conversation(conversationId).pendingActions())[0].approve(),
    );
    expect(item).toMatchObject({ type: 'tool', output: { type: 'json' } });
    expect(item).not.toHaveProperty('notRun');
  });

  it('cancelled: says it was withdrawn', async () => {
    const item = await settled(async (conversationId) => heed.conversation(conversationId).cancel());
    expect(item).toMatchObject({ notRun: { reason: 'cancelled' } });
  });
});
