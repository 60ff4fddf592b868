import { z } from 'zod';
import { createHeed, tool, type AgentConfig, type HeedOptions } from 'heed';
import { scriptedModel, type ScriptedRespond, type ScriptedVersion } from 'heed/testing';

/** A Heed on a memory store with no sweep timer, for tests. */
export function testHeed(agents: AgentConfig[], options: Partial<HeedOptions> = {}) {
  return createHeed({ agents, sweepIntervalMs: 0, ...options });
}

/** The text of the last tool result the model was sent in a call. */
export function lastToolResult(messages: Array<{ role: string; content: unknown }>): unknown {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message.role === 'tool') {
      const parts = message.content as Array<{ output: { type: string; value: unknown } }>;
      return parts.at(-1)!.output;
    }
  }
  return undefined;
}

/** A refund agent: the model calls issue_refund first, then says "Refunded.". */
export function refundAgent(
  extra: {
    needsApproval?: boolean | ((input: { orderId: number; amount: number }) => boolean);
    respond?: ScriptedRespond;
    /** The model's specification: v3 (AI SDK 6, the default) or v4 (AI SDK 7). */
    specificationVersion?: ScriptedVersion;
  } = {},
) {
  const runs: Array<{ orderId: number; amount: number; key: string }> = [];
  const model = scriptedModel(
    extra.respond ??
      (({ stepIndex }) =>
        stepIndex === 0
          ? { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] }
          : { text: 'Refunded.' }),
    { specificationVersion: extra.specificationVersion ?? 'v3' },
  );
  const agent: AgentConfig = {
    name: 'support',
    model,
    instructions: 'You help with refunds.',
    tools: {
      issue_refund: tool({
        description: 'Refund an order.',
        inputSchema: z.object({ orderId: z.number().int(), amount: z.number().positive().max(100) }),
        needsApproval: extra.needsApproval ?? true,
        execute: async (input, ctx) => {
          runs.push({ ...input, key: ctx.idempotencyKey });
          return { refunded: input.amount };
        },
      }),
    },
  };
  return { agent, model, runs };
}
