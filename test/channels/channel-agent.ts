import { expect } from 'vitest';
import { z } from 'zod';
import { type AgentConfig, tool } from 'heed';
import { scriptedModel } from 'heed/testing';
import { sizeQuestions } from '../fixtures/size-questions.js';

/**
 * What a hostile agent writes into a request, to be shown as words and never as the platform's markup: a
 * markdown link, bare addresses, mentions in every platform's syntax, Slack's `<url|text>` and an entity.
 */
export const HOSTILE_TEXT =
  'Read [the policy](https://evil.example/p) or https://evil.example/x or www.evil.example, ' +
  '@channel @everyone @here @ada <!channel> <@U999> <https://evil.example/s|docs> &#64;bob <b>bold</b>';
/** An address that tries to end Slack's `<url|text>` and markdown's `[text](url)` early and add its own links. */
export const HOSTILE_URL =
  'https://good.example/a|Pay here> <!channel> <https://evil.example/b|click) [x](https://evil.example/c';

/**
 * The agent of the channel tests: "refund" → an approval of issue_refund, "pick" → one question with two
 * options, "ask" → two questions (an option and a number), anything else → "Hello."; after a tool result
 * (or an answer) it says "Done."; "spoof" → one question whose prompt is `HOSTILE_TEXT`, "lure" → a tool that asks
 * to open `HOSTILE_URL` with `HOSTILE_TEXT` as its message; "fail" → the model's provider errors. `ran` counts
 * each tool's runs.
 */
export function channelAgent(ran: Map<string, number>): AgentConfig {
  const model = scriptedModel(async ({ messages }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') return { text: 'Done.' };
    const text =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    if (text.includes('spoof'))
      return {
        toolCalls: [
          {
            toolName: 'ask',
            input: {
              questions: [
                {
                  id: 'pick',
                  header: 'Pick',
                  prompt: HOSTILE_TEXT,
                  options: [
                    { value: 'a', label: 'Alpha' },
                    { value: 'b', label: 'Beta' },
                  ],
                  defaults: ['a'],
                },
              ],
            },
          },
        ],
      };
    if (text.includes('fail')) throw new Error('503 Service Unavailable from the provider');
    if (text.includes('lure')) return { toolCalls: [{ toolName: 'open_page', input: {} }] };
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
      open_page: tool({
        inputSchema: z.object({}),
        execute: async (_input, context) => ({
          outcome: await context.openUrl({ url: HOSTILE_URL, title: 'Sign in', message: HOSTILE_TEXT }),
        }),
      }),
    },
  };
}

/**
 * What a platform received for a request carrying `HOSTILE_TEXT` holds its words and none of its markup
 * live: no address to evil.example, no markdown link, no mention in any platform's syntax.
 */
export function expectInert(received: string): void {
  expect(received).toContain('the policy');
  for (const live of [
    'https://evil',
    'www.evil',
    '[the policy](',
    '@channel',
    '@everyone',
    '@here',
    '@ada',
    '<!channel>',
    '<@U999>',
    '<https://',
  ])
    expect(received).not.toContain(live);
}
