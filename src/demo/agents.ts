import type { LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { AgentModel } from '../engine/turn/model-spec.js';
import { z } from 'zod';
import type { AgentConfig } from '../config.js';
import { scriptedModel, type ScriptedResponse } from '../testing/scripted-model.js';
import { tool } from '../tool.js';
import { demoUsers } from './users.js';

export interface DemoAgentOptions {
  /** A real model for every demo agent; by default each runs on a scripted one (no network, the same answers every time). */
  model?: AgentModel;
  /** How long the scripted model waits between words, in ms (default 15), so replies visibly stream. */
  chunkDelayMs?: number;
  /** Who must allow a `finance` refund, all of them (default the demo users, ada and grace). */
  approvers?: string[];
}

/**
 * The agents `heed serve` runs without a config file. Each shows one way an agent pauses to ask:
 * `helpdesk` an intake and an approval with editable arguments, `trip-planner` the question tool
 * (options and typed inputs), `page-helper` a client tool answered by the page, `finance` an approval
 * two people must give (four eyes). By default their model is scripted; pass `model` to use a real one.
 */
export function demoAgents(options: DemoAgentOptions = {}): AgentConfig[] {
  const approvers = options.approvers ?? demoUsers.map((user) => user.userId);
  const scripted = (respond: (prompt: LanguageModelV3Prompt) => ScriptedResponse) =>
    options.model ??
    // A server runs for days: keep no prompts (each holds the whole conversation), nobody reads them.
    scriptedModel(({ messages }) => respond(messages), {
      chunkText: 'word',
      chunkDelayMs: options.chunkDelayMs ?? 15,
      keepCalls: 0,
    });

  return [
    {
      name: 'helpdesk',
      description: 'Asks two intake questions, then issues refunds once a person approves (the amount can be edited).',
      instructions:
        'You are a helpdesk agent. When the user asks for a refund, call issue_refund with the order number and amount. ' +
        'Keep answers short.',
      model: scripted(helpdeskScript),
      intake: {
        preamble: 'Two quick questions before we start.',
        questions: [
          {
            id: 'topic',
            header: 'Topic',
            prompt: 'What do you need help with?',
            options: [
              { value: 'billing', label: 'Billing and refunds' },
              { value: 'technical', label: 'Something is broken' },
              { value: 'account', label: 'My account' },
            ],
            defaults: ['billing'],
          },
          {
            id: 'email',
            header: 'Email',
            prompt: 'Which email should we reply to?',
            input: { type: 'email', required: false, placeholder: 'you@example.com' },
          },
        ],
      },
      tools: {
        issue_refund: tool({
          description: 'Refund part or all of an order.',
          inputSchema: z.object({
            orderId: z.number().int().positive(),
            amount: z.number().positive().max(500),
            reason: z.string().max(200).optional(),
          }),
          needsApproval: true,
          approvalTitle: (input) => `Refund $${input.amount} on order ${input.orderId}?`,
          approvalSummary: 'Money goes back to the card used for the order. You may lower the amount before approving.',
          execute: async (input, context) => ({
            refunded: input.amount,
            orderId: input.orderId,
            reference: `rf_${context.idempotencyKey.slice(-8)}`,
          }),
        }),
      },
    },
    {
      name: 'trip-planner',
      description: 'Asks a few questions with options and typed fields before it plans a trip.',
      instructions:
        'You plan short trips. Before planning, use the ask tool once to ask for the destination (options, with a default), ' +
        'the start date (a date input), the number of travellers (a number input) and whether dates are flexible (boolean).',
      model: scripted(tripScript),
      ask: true,
    },
    {
      name: 'page-helper',
      description: 'Asks the web page that embeds the chat for the text the user selected (a client tool).',
      instructions:
        'When the user refers to what they selected on the page, call get_selection and work with its text.',
      model: scripted(pageScript),
      tools: {
        get_selection: tool({
          description: 'Read the text the user selected on the page.',
          inputSchema: z.object({ purpose: z.string().max(200) }),
          outputSchema: z.object({ text: z.string().max(10_000) }),
          client: { kind: 'page', timeoutSeconds: 120 },
        }),
      },
    },
    {
      name: 'finance',
      description: `Issues refunds that two people must allow (four eyes): ${approvers.join(' and ')}.`,
      instructions:
        'You issue refunds. When the user asks for one, call issue_refund with the order number and amount. Keep answers short.',
      model: scripted(financeScript),
      tools: {
        issue_refund: tool({
          description: 'Refund part or all of an order; two people must allow it.',
          inputSchema: z.object({
            orderId: z.number().int().positive(),
            amount: z.number().positive().max(5000),
            reason: z.string().max(200).optional(),
          }),
          needsApproval: true,
          approval: { approvers, required: Math.min(2, approvers.length) },
          approvalTitle: (input) => `Refund $${input.amount} on order ${input.orderId}?`,
          approvalSummary: `Two people must allow this refund: ${approvers.join(' and ')}. A lowered amount asks again whoever allowed the old one.`,
          execute: async (input, context) => ({
            refunded: input.amount,
            orderId: input.orderId,
            reference: `rf_${context.idempotencyKey.slice(-8)}`,
          }),
        }),
      },
    },
  ];
}

type ToolResult = { toolName: string; output: LanguageModelV3ToolResultOutput };

/** The results the last step got, when the prompt ends with tool results. */
function lastResults(prompt: LanguageModelV3Prompt): ToolResult[] {
  const last = prompt.at(-1);
  if (!last || last.role !== 'tool') return [];
  return last.content.flatMap((part) =>
    part.type === 'tool-result' ? [{ toolName: part.toolName, output: part.output }] : [],
  );
}

function lastUserText(prompt: LanguageModelV3Prompt): string {
  for (let index = prompt.length - 1; index >= 0; index--) {
    const message = prompt[index];
    if (message.role === 'user')
      return message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
  }
  return '';
}

function outputText(output: LanguageModelV3ToolResultOutput): string {
  if (output.type === 'text' || output.type === 'error-text') return output.value;
  if (output.type === 'json' || output.type === 'error-json') return JSON.stringify(output.value);
  return '';
}

const failed = (output: LanguageModelV3ToolResultOutput) =>
  output.type === 'error-text' || output.type === 'error-json';

function helpdeskScript(prompt: LanguageModelV3Prompt): ScriptedResponse {
  const [result] = lastResults(prompt);
  if (result?.toolName === 'intake') {
    return { text: 'Thanks, noted. What can I do for you? For example: "refund order 42 for $5".' };
  }
  if (result?.toolName === 'issue_refund') {
    if (failed(result.output)) return { text: `I did not issue the refund. ${outputText(result.output)}` };
    const value = (result.output.type === 'json' ? result.output.value : {}) as {
      refunded?: number;
      orderId?: number;
      reference?: string;
    };
    return { text: `Done: $${value.refunded} refunded on order ${value.orderId} (reference ${value.reference}).` };
  }
  const text = lastUserText(prompt);
  if (/refund/i.test(text)) {
    const orderId = Number(/order\D*(\d+)/i.exec(text)?.[1] ?? 42);
    const amount = Number(/\$\s*(\d+(?:\.\d+)?)/.exec(text)?.[1] ?? 5);
    return {
      text: 'I can do that once you approve it.',
      toolCalls: [{ toolName: 'issue_refund', input: { orderId, amount, reason: 'customer request' } }],
    };
  }
  return { text: 'I can issue refunds. Try: "refund order 42 for $5".' };
}

function financeScript(prompt: LanguageModelV3Prompt): ScriptedResponse {
  const [result] = lastResults(prompt);
  if (result?.toolName === 'issue_refund') {
    if (failed(result.output)) return { text: `The refund was not issued. ${outputText(result.output)}` };
    const value = (result.output.type === 'json' ? result.output.value : {}) as {
      refunded?: number;
      orderId?: number;
      reference?: string;
    };
    return {
      text: `Both allowed it: $${value.refunded} refunded on order ${value.orderId} (reference ${value.reference}).`,
    };
  }
  const text = lastUserText(prompt);
  if (/refund/i.test(text)) {
    const orderId = Number(/order\D*(\d+)/i.exec(text)?.[1] ?? 1042);
    const amount = Number(/\$\s*(\d+(?:\.\d+)?)/.exec(text)?.[1] ?? 80);
    return {
      text: 'Two people must allow this one; I asked them.',
      toolCalls: [{ toolName: 'issue_refund', input: { orderId, amount, reason: 'customer request' } }],
    };
  }
  return { text: 'I issue refunds that two people must allow. Try: "refund order 1042 for $80".' };
}

function tripScript(prompt: LanguageModelV3Prompt): ScriptedResponse {
  const [result] = lastResults(prompt);
  if (result?.toolName === 'ask') {
    if (failed(result.output)) return { text: 'No problem, ask me again whenever you like.' };
    return { text: `Here is what I will plan with.\n${outputText(result.output)}\nA first draft is on its way.` };
  }
  return {
    text: 'A few questions first.',
    toolCalls: [
      {
        toolName: 'ask',
        input: {
          preamble: 'I pre-picked what I would choose; change anything that is off.',
          questions: [
            {
              header: 'Destination',
              prompt: 'Where would you like to go?',
              options: [
                { value: 'lisbon', label: 'Lisbon', description: 'Mild weather, good food, walkable.' },
                { value: 'kyoto', label: 'Kyoto', description: 'Temples and gardens; long flight.' },
                { value: 'reykjavik', label: 'Reykjavik', description: 'Hot springs and northern lights.' },
              ],
              defaults: ['lisbon'],
            },
            {
              header: 'Start date',
              prompt: 'When do you want to leave?',
              input: { type: 'date', min: '2024-01-01', required: true },
            },
            {
              header: 'Travellers',
              prompt: 'How many people are travelling?',
              input: { type: 'number', min: 1, max: 9 },
              defaults: ['2'],
            },
            {
              header: 'Flexible',
              prompt: 'Can the dates move by a day or two?',
              input: { type: 'boolean' },
              defaults: ['true'],
            },
          ],
        },
      },
    ],
  };
}

function pageScript(prompt: LanguageModelV3Prompt): ScriptedResponse {
  const [result] = lastResults(prompt);
  if (result?.toolName === 'get_selection') {
    if (failed(result.output)) return { text: `I could not read the page: ${outputText(result.output)}` };
    const value = (result.output.type === 'json' ? result.output.value : {}) as { text?: string };
    const text = value.text ?? '';
    return { text: `You selected ${text.split(/\s+/).filter(Boolean).length} words: "${text.slice(0, 200)}".` };
  }
  return { toolCalls: [{ toolName: 'get_selection', input: { purpose: lastUserText(prompt).slice(0, 200) } }] };
}
