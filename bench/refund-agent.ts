import { z } from 'zod';
import { tool, type AgentConfig } from '../src/index.js';
import { scriptedModel, type ScriptedModel } from '../src/testing/index.js';

/**
 * The W1 agent, as in test/kit.ts `refundAgent` (that file imports the package as `heed`, which only
 * the vitest alias resolves): the model calls issue_refund {orderId: 42, amount: 5}, which needs
 * approval, then says "Refunded.". Nothing is kept per call: the bench empties `model.calls` itself.
 */
export function benchRefundAgent(
  name = 'support',
  hitl?: AgentConfig['hitl'],
): { agent: AgentConfig; model: ScriptedModel; refunds: { count: number } } {
  const refunds = { count: 0 };
  const model = scriptedModel(({ stepIndex }) =>
    stepIndex === 0
      ? { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] }
      : { text: 'Refunded.' },
  );
  const agent: AgentConfig = {
    name,
    model,
    instructions: 'You help with refunds.',
    ...(hitl ? { hitl } : {}),
    tools: {
      issue_refund: tool({
        description: 'Refund an order.',
        inputSchema: z.object({ orderId: z.number().int(), amount: z.number().positive().max(100) }),
        needsApproval: true,
        execute: async (input) => {
          refunds.count++;
          return { refunded: input.amount };
        },
      }),
    },
  };
  return { agent, model, refunds };
}

/** Forgets what the scripted model recorded (it keeps every prompt it was sent). */
export function forgetCalls(model: ScriptedModel): void {
  (model.calls as unknown[]).length = 0;
}
