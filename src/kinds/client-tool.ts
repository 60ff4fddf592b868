import { z } from 'zod';
import { isPlainObject } from './plain-object.js';
import { HeedError } from '../errors.js';
import { argsSchemaField } from '../protocol/action-base.js';
import { jsonValue, type JsonValue } from '../protocol/values.js';
import { describeIssues, issueList } from './issues.js';
import { defineKind } from './kind.js';
import { raisedTitle, raiseShape } from './raise.js';
import { oneLine } from './one-line.js';
import { jsonLines, withDetail } from './settled-line.js';

/** What the model reads when the host page never answered. */
const NO_ANSWER = 'The host page did not answer.';

/**
 * Client tools: a tool the host page runs. Its answer is the tool's output (checked against the tool's
 * output schema and `client.validate`, and capped in size) or an error; the model reads it as the tool
 * result, which is never kept on the record.
 */
export const clientTool = defineKind({
  docName: 'ClientTool',
  request: z.strictObject({
    kind: z.literal('client_tool'),
    args: jsonValue.describe('The arguments of the call.'),
    clientKind: z.string(),
    title: z.string().optional().describe('What the call is for, in words (given by a handler or remote agent).'),
    argsSchema: argsSchemaField.describe(
      'JSON Schema of the arguments, given by a handler or remote agent (a tool of the agent has its own).',
    ),
    timeoutSeconds: z.number().optional(),
    originalArgs: jsonValue
      .optional()
      .describe('The arguments the model called it with, when a person approved the call with others (`args`).'),
  }),
  answer: z.strictObject({
    type: z.literal('client_tool'),
    output: z.unknown().optional(),
    error: z.string().max(4000).optional(),
  }),
  // As stored: the page's output itself is never kept on the record, only its size.
  stored: [
    z.strictObject({ type: z.literal('client_tool'), outputBytes: z.number().int() }),
    z.strictObject({ type: z.literal('client_tool'), error: z.string() }),
  ],
  viewExtras: { argsSchema: argsSchemaField },
}).rules({
  raisedByTools: false,
  // Written by a handler or a remote agent only: a backend's request has no page to run in.
  raise: raiseShape(
    z.strictObject({
      kind: z.literal('client_tool'),
      toolName: z.string().min(1, 'a client tool request needs a toolName'),
      toolCallId: z
        .string()
        .regex(/^[\w.:-]{1,128}$/, 'a toolCallId is 1 to 128 letters, digits or any of _ . : -')
        .optional(),
      title: raisedTitle.min(1).optional(),
      args: jsonValue,
      argsSchema: z.record(z.string(), jsonValue).optional(),
      timeoutSeconds: z.number().positive().optional(),
    }),
    (request) => ({
      raised: {
        kind: 'client_tool' as const,
        args: request.args ?? null,
        clientKind: request.toolName,
        ...(request.title !== undefined ? { title: request.title } : {}),
        ...(request.argsSchema !== undefined ? { argsSchema: request.argsSchema } : {}),
        ...(request.timeoutSeconds !== undefined ? { timeoutSeconds: request.timeoutSeconds } : {}),
      },
      toolName: request.toolName,
      ...(request.toolCallId !== undefined ? { toolCallId: request.toolCallId } : {}),
    }),
  ),
  viewsToolArgs: true,
  // Only the app's web page answers it, and a chat thread's conversation takes no answer from the app.
  answeredInThreads: false,
  // Raised only by the turn loop, from a tool call whose input was checked against the tool's schema.
  checkRequest: (request) => request,

  async checkAccess(action, { caller, agent, agentName }) {
    const access = agent?.tools?.[action.toolName]?.client?.access;
    const call = {
      caller,
      toolCallId: action.toolCallId,
      input: action.request.args,
      request: action.request,
      conversationId: action.conversationId,
      messageId: action.messageId,
      agent: agentName,
      createdAt: action.createdAt,
    };
    if (access && !(await access(call))) {
      throw new HeedError('action_forbidden', 'You may not answer this client tool call.');
    }
  },

  checkAnswer(answer, action, { agent, limits }) {
    const hasOutput = answer.output !== undefined;
    const hasError = answer.error !== undefined;
    if (hasOutput === hasError) {
      throw new HeedError(
        'invalid_client_tool_result',
        'Send either output (what the page produced) or error (why it could not), not both and not neither.',
      );
    }
    if (answer.error !== undefined) {
      return {
        stored: { type: 'client_tool', error: answer.error },
        eventStatus: 'failed',
        defaulted: null,
        toolOutput: { type: 'error-text', value: answer.error },
      };
    }
    const maxBytes = limits.clientToolOutputBytes;
    const text = JSON.stringify(answer.output);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > maxBytes) {
      throw new HeedError(
        'invalid_client_tool_result',
        `The output is ${bytes} bytes; at most ${maxBytes} are accepted.`,
        {
          details: { bytes, maxBytes },
        },
      );
    }
    const definition = agent?.tools?.[action.toolName];
    let output: unknown = answer.output;
    if (definition?.outputSchema) {
      const result = (definition.outputSchema as z.ZodType).safeParse(answer.output);
      if (!result.success) {
        throw new HeedError(
          'invalid_client_tool_result',
          `The output does not match what ${action.toolName} returns: ${describeIssues(result.error.issues)}.`,
          {
            details: { issues: issueList(result.error.issues) },
          },
        );
      }
      output = result.data;
    }
    if (definition?.client?.validate) {
      const verdict = definition.client.validate({ input: action.request.args, output });
      if (verdict !== true) {
        throw new HeedError(
          'invalid_client_tool_result',
          typeof verdict === 'string' ? verdict : 'The output was refused by the tool.',
        );
      }
    }
    return {
      stored: { type: 'client_tool', outputBytes: bytes },
      eventStatus: 'answered',
      defaulted: null,
      toolOutput: { type: 'json', value: (output ?? null) as JsonValue },
      loggedOutput: { outputBytes: bytes },
    };
  },

  // An answered call got its result when it was answered; one still without a result was never answered.
  modelReads: (action) => ({
    output: {
      type: 'error-text',
      value: action.status === 'cancelled' ? 'Cancelled before the page answered.' : NO_ANSWER,
    },
  }),

  // Whatever the agent's onTimeout: the model reads that the page did not answer, and the agent carries on (seed 002).
  onTimeout: 'deny',

  lapse: () => ({
    resolution: { type: 'client_tool', error: NO_ANSWER },
    status: 'failed',
    defaulted: null,
    toolOutput: { type: 'error-text', value: NO_ANSWER },
  }),

  // The page's own deadline, and half a minute for its answer to arrive.
  deadlineMinutes: (request) => (request.timeoutSeconds ? (request.timeoutSeconds + 30) / 60 : undefined),

  resolvedDetails: (resolution, action, at) => ({
    ...('outputBytes' in resolution ? { outputBytes: resolution.outputBytes } : { error: resolution.error }),
    ok: 'outputBytes' in resolution,
    durationMs: Math.max(0, Date.parse(at) - Date.parse(action.createdAt)),
  }),

  // A person approved other arguments than the model's: the model is sent its call with those, as the page ran it.
  ranWith: (action) => (action.request.originalArgs !== undefined ? action.request.args : undefined),

  decline: (note) => ({ type: 'client_tool', error: (note as string | undefined) ?? 'Declined by the user.' }),

  a2aPause: 'input_required',
  agUi: {
    reason: 'tool_call',
    frontendTool: true,
    answerFromResume(status, payload) {
      if (status === 'cancelled') return { type: 'client_tool', error: 'Cancelled by the user.' };
      return isPlainObject(payload) ? { ...payload, type: 'client_tool' } : { type: 'client_tool', output: payload };
    },
  },

  answerFromUiPart(part) {
    if (part.state === 'output-error') {
      return {
        type: 'client_tool',
        error: typeof part.errorText === 'string' ? part.errorText : 'The page could not run the tool.',
      };
    }
    return part.state === 'output-available' ? { type: 'client_tool', output: part.output } : undefined;
  },

  presentation: {
    title: (action) => action.toolName,
    summary: (action) => `The page runs ${oneLine(action.toolName)}`,
    noun: 'Page tool',
    headline: (action) => `${action.toolName} (answered by the page)`,
    outcome: (resolution) => ('error' in resolution ? 'The page could not answer' : 'Answered by the page'),
    describeResolution: (_action, resolution) =>
      'error' in resolution
        ? withDetail('The page could not answer', oneLine(resolution.error, 60))
        : 'Answered by the page',
    answeredBy: 'the page',
    detailLines: (action) => [
      { text: `${action.toolName} runs in the page`, tone: 'strong' },
      { text: jsonLines(action.args) },
    ],
    searchText: (action) => [JSON.stringify(action.args)],
    // Answered by the page that embeds the chat, not by a person following a link.
    answeredByLink: false,
    oneClickLinks: () => ({}),
    aiSdkApproval: false,
    aiSdkTitle: () => undefined,
  },
});
