import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { createHeed, tool } from 'heed';
import { scriptedModel } from 'heed/testing';

describe('smoke', () => {
  it('approval round trip', async () => {
    let ran = 0;
    const model = scriptedModel(({ stepIndex }) =>
      stepIndex === 0 ? { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] } : { text: 'Refunded.' });
    const heed = createHeed({
      agents: [{ name: 'support', model, tools: { issue_refund: tool({ inputSchema: z.object({ orderId: z.number(), amount: z.number() }), needsApproval: true, execute: async () => { ran++; return { ok: true }; } }) } }],
      sweepIntervalMs: 0,
    });
    const c = await heed.createConversation({ agent: 'support' });
    const r1 = await heed.conversation(c.id).send('refund order 42');
    console.log(JSON.stringify(r1, null, 1));
    const [pending] = await heed.conversation(c.id).pendingActions();
    const r2 = await pending.approve();
    console.log(JSON.stringify(r2, null, 1));
    console.log(JSON.stringify(await heed.conversation(c.id).events(), null, 0));
    expect(ran).toBe(1);
    await heed.close();
  });
});
