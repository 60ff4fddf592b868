import { z } from 'zod';
import { type AgentConfig, tool } from 'heed';
import { scriptedModel } from 'heed/testing';
import { sizeQuestions } from '../fixtures/size-questions.js';

/**
 * The agent of the channel tests: "refund" → an approval of issue_refund, "pick" → one question with two
 * options, "ask" → two questions (an option and a number), anything else → "Hello."; after a tool result
 * (or an answer) it says "Done.". `ran` counts each tool's runs.
 */
export function channelAgent(ran: Map<string, number>): AgentConfig {
  const model = scriptedModel(async ({ messages }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') return { text: 'Done.' };
    const text =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    if (text.includes('refund'))
      return { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] };
    if (text.includes('pick')) return { toolCalls: [{ toolName: 'ask', input: { questions: [sizeQuestions[0]] } }] };
    if (text.includes('ask')) return { toolCalls: [{ toolName: 'ask', input: { questions: sizeQuestions } }] };
    return { text: 'Hello.' };
  });
  return {
    name: 'support',
    model,
    ask: true,
    tools: {
      issue_refund: tool({
        inputSchema: z.object({ orderId: z.number().int(), amount: z.number().max(500) }),
        needsApproval: true,
        execute: async (input) => {
          ran.set('issue_refund', (ran.get('issue_refund') ?? 0) + 1);
          return { refunded: input.amount };
        },
      }),
    },
  };
}
