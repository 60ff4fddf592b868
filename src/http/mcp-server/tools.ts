import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Caller } from '../../caller.js';
import { HeedError } from '../../errors.js';
import type { Heed } from '../../heed.js';
import { typedAnswers } from '../../kinds/question/typed.js';
import type { Question } from '../../kinds/question/wire.js';
import type { ActionView } from '../../protocol/views.js';
import type { JsonObject } from '../../protocol/values.js';
import type { StoredResolution } from '../../types.js';

/** What a tool call needs from the server it runs in. */
export interface ToolContext {
  heed: Heed;
  caller: Caller;
  /** Seconds between progress notifications while a call waits. */
  progressSeconds: number;
  /** `mcp.channel`: where in a chat workspace each request is posted too. */
  channel?: string;
  /** The server's clock (`now` in the config), for when a request lapses. */
  now(): string;
  /**
   * Takes a slot of the caller's waiting calls (and counts the request against `limits.conversationsPerMinute`);
   * the returned function gives it back.
   */
  takeWaitSlot(): () => void;
}

type Extra = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message?: string };
  }) => Promise<void>;
};

const timeoutSeconds = z
  .number()
  .int()
  .min(10)
  .max(7 * 86_400)
  .optional()
  .describe("How long the person has before the request lapses; default the server's hitl.timeoutMinutes.");
const key = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe(
    'The same key from you gives the same request: a call retried after a restart finds the one already asked.',
  );
const assignees = z
  .array(z.string().min(1))
  .max(50)
  .optional()
  .describe('User ids or group:<name> entries who may answer besides you (default: you alone).');

/** The three tools of DESIGN §20: each makes a request as `POST /api/requests` does and waits for it. */
export function registerTools(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'ask_person',
    {
      title: 'Ask a person',
      description:
        'Ask a person one or more questions (options, typed inputs, defaults) and wait for the answers. It reaches them in the console, the terminal inbox, mail and chat.',
      inputSchema: {
        questions: z
          .array(z.record(z.string(), z.unknown()))
          .min(1)
          .max(20)
          .describe(
            'Questions as Heed takes them: { id, prompt, options?, input?, defaults?, multiple?, allowFreeText? }.',
          ),
        preamble: z.string().max(2000).optional(),
        assignees,
        timeoutSeconds,
        key,
      },
    },
    async (args, extra) => {
      const outcome = await askAndWait(
        context,
        extra as Extra,
        { kind: 'question', questions: args.questions, ...(args.preamble ? { preamble: args.preamble } : {}) },
        args,
      );
      if ('refused' in outcome) return outcome.refused;
      const { action } = outcome;
      const resolution = action.resolution as StoredResolution | undefined;
      if (
        action.status === 'resolved' &&
        resolution?.type === 'question' &&
        !('skip' in resolution) &&
        !('dismiss' in resolution)
      ) {
        const questions = 'questions' in action ? (action.questions as Question[]) : [];
        const answers = typedAnswers(questions, resolution.answers);
        return done({ status: 'answered', answers, answeredBy: action.resolvedBy ?? null });
      }
      return failed(action, 'declined', 'The person declined to answer.');
    },
  );

  server.registerTool(
    'request_approval',
    {
      title: 'Ask a person to approve',
      description:
        'Ask a person to allow or deny something (a deploy, a refund, a command) and wait for the decision. They may edit the arguments, checked against argsSchema.',
      inputSchema: {
        title: z.string().min(1).max(120),
        summary: z.string().max(4000).optional(),
        toolName: z.string().min(1).max(100).optional(),
        args: z.unknown().optional(),
        argsSchema: z.record(z.string(), z.unknown()).optional(),
        assignees,
        timeoutSeconds,
        key,
      },
    },
    async (args, extra) => {
      const request = {
        kind: 'approval' as const,
        title: args.title,
        ...(args.summary !== undefined ? { summary: args.summary } : {}),
        ...(args.toolName !== undefined ? { toolName: args.toolName } : {}),
        ...(args.args !== undefined ? { args: args.args } : {}),
        ...(args.argsSchema !== undefined ? { argsSchema: args.argsSchema } : {}),
      };
      const outcome = await askAndWait(context, extra as Extra, request, args);
      if ('refused' in outcome) return outcome.refused;
      const { action } = outcome;
      const resolution = action.resolution as StoredResolution | undefined;
      if (action.status === 'resolved' && resolution?.type === 'approval') {
        return done({
          decision: resolution.decision,
          ...(resolution.approvedArgs !== undefined ? { approvedArgs: resolution.approvedArgs } : {}),
          ...(resolution.comment !== undefined ? { comment: resolution.comment } : {}),
          answeredBy: action.resolvedBy ?? null,
        });
      }
      return failed(action, 'withdrawn', 'The request was withdrawn before anyone decided.');
    },
  );

  server.registerTool(
    'permission_prompt',
    {
      title: 'Permission prompt',
      description:
        "Claude Code's --permission-prompt-tool: a person allows or denies the tool call (and may edit its input). Answers one text content with the JSON Claude Code reads.",
      inputSchema: {
        tool_name: z.string().min(1).max(200),
        input: z.record(z.string(), z.unknown()),
        tool_use_id: z.string().max(200).optional(),
      },
    },
    async (args, extra) => {
      const line = JSON.stringify(args.input);
      const request = {
        kind: 'approval' as const,
        title: `${args.tool_name}: ${line.length > 100 ? `${line.slice(0, 99)}…` : line}`.slice(0, 120),
        toolName: args.tool_name,
        args: args.input,
        // The input may be edited, but only as an object: Claude Code runs the tool with it.
        argsSchema: { type: 'object', additionalProperties: true },
      };
      // Claude Code's tool use id names the call: a retry after a restart finds the request already asked.
      const outcome = await askAndWait(
        context,
        extra as Extra,
        request,
        args.tool_use_id ? { key: `permission:${args.tool_use_id}` } : {},
      );
      if ('refused' in outcome) return outcome.refused;
      const { action } = outcome;
      const resolution = action.resolution as StoredResolution | undefined;
      // Claude Code reads the JSON in the text, so a deny or a lapse is a normal result too.
      const answer =
        action.status === 'resolved' && resolution?.type === 'approval' && resolution.decision === 'allow'
          ? { behavior: 'allow', updatedInput: resolution.approvedArgs ?? args.input }
          : {
              behavior: 'deny',
              message:
                action.status === 'expired'
                  ? 'Nobody answered in time, so the call was not allowed.'
                  : resolution?.type === 'approval' && typeof resolution.comment === 'string' && resolution.comment
                    ? resolution.comment
                    : 'A person denied this call.',
            };
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
    },
  );
}

/**
 * Makes the request, then waits until it is settled, lapses or the client cancels (the request is then
 * withdrawn). Answers the settled action, or a tool error when the caller has too many calls waiting.
 */
async function askAndWait(
  context: ToolContext,
  extra: Extra,
  request: Record<string, unknown>,
  args: { assignees?: string[]; timeoutSeconds?: number; key?: string },
): Promise<{ action: ActionView } | { refused: CallToolResult }> {
  let release: () => void;
  try {
    release = context.takeWaitSlot();
  } catch (thrown) {
    return { refused: { isError: true, content: [{ type: 'text', text: (thrown as Error).message }] } };
  }
  try {
    const { heed, caller } = context;
    // A request Heed cannot ask is the model's to fix: a tool error with the sentence, nothing stored.
    const made = await heed.requests
      .create({
        request: request as never,
        ...(args.assignees ? { assignees: args.assignees } : {}),
        ...(args.timeoutSeconds !== undefined
          ? { expiresAt: new Date(Date.parse(context.now()) + args.timeoutSeconds * 1000).toISOString() }
          : {}),
        ...(args.key !== undefined ? { idempotencyKey: `mcp:${args.key}` } : {}),
        ...(context.channel !== undefined ? { channel: context.channel } : {}),
        metadata: { via: 'mcp' } satisfies JsonObject,
        caller,
      })
      .catch((thrown: unknown) => {
        if (HeedError.isInstance(thrown) && thrown.status < 500) return thrown;
        throw thrown;
      });
    if (HeedError.isInstance(made))
      return { refused: { isError: true, content: [{ type: 'text', text: made.message }] } };
    let action = made.action;
    const token = extra._meta?.progressToken;
    let rounds = 0;
    while (action.status === 'pending') {
      if (extra.signal.aborted) break;
      const waited = await heed.requests
        .wait(action.id, { caller, timeoutSeconds: Math.min(context.progressSeconds, 60), signal: extra.signal })
        .catch((thrown: unknown) => {
          if (extra.signal.aborted) return undefined;
          throw thrown;
        });
      if (!waited) break;
      action = waited.action;
      if (action.status === 'pending' && token !== undefined) {
        rounds++;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: rounds, message: 'Still waiting for a person to answer.' },
          })
          .catch(() => undefined);
      }
    }
    if (extra.signal.aborted && action.status === 'pending') {
      // The client gave up on the call: nobody should be left answering it.
      await heed
        .conversation(action.conversationId)
        .cancel({ caller })
        .catch(() => undefined);
      throw new HeedError('invalid_request', 'The call was cancelled; its request is withdrawn.');
    }
    return { action };
  } finally {
    release();
  }
}

function done(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

function failed(action: ActionView, otherwise: string, sentence: string): CallToolResult {
  const status = action.status === 'expired' ? 'lapsed' : otherwise;
  const text = action.status === 'expired' ? 'Nobody answered in time: the request lapsed.' : sentence;
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { status } };
}
