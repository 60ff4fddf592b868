import { z } from 'zod';
import { HeedError } from '../errors.js';
import { jsonValue, type JsonObject } from '../protocol/values.js';
import { MAX_TITLE_CHARS } from '../protocol/conversation.js';
import { kindOf, type RaisedRequest } from '../kinds/index.js';
import { checkApprovalPolicy, type ApprovalPolicy } from '../kinds/approval-policy.js';
import type { ActionRequest } from '../types.js';

/** A handler's request, made into what a tool would raise with `ctx.request`, with what the action keeps besides. */
export interface RaisedByHandler {
  raised: RaisedRequest;
  /** The action's `toolName`: the approval's own, else the kind's name. */
  toolName: string;
  expiresInMinutes?: number;
  policy?: ApprovalPolicy;
  /** The call's id as the agent knows it (a client tool's), so the page's answer can be matched to it. */
  toolCallId?: string;
}

const minutes = z.number().min(0).optional();
// Ids travel in URLs, events and the page's messages: printable, no spaces, bounded.
const toolCallId = z.string().regex(/^[\w.:-]{1,128}$/, 'a toolCallId is 1 to 128 letters, digits or any of _ . : -');
const jsonObject = z.record(z.string(), jsonValue);

// Each kind's request as a handler writes it, made into the kind's raised shape. The kinds' own checks
// (checkRequest) run afterwards, exactly as for a tool's `ctx.request`.
const requestSchema = z.discriminatedUnion('kind', [
  z
    .strictObject({
      kind: z.literal('approval'),
      title: z.string().min(1, 'an approval needs a title'),
      summary: z.string().optional(),
      toolName: z.string().min(1).optional(),
      args: jsonValue.optional(),
      argsSchema: jsonObject.optional(),
      approval: z.unknown().optional(),
      expiresInMinutes: minutes,
    })
    .transform((request): RaisedByHandler => ({
      raised: {
        kind: request.kind,
        title: request.title,
        summary: request.summary ?? '',
        args: request.args ?? null,
        canRemember: false,
        ...(request.argsSchema !== undefined ? { argsSchema: request.argsSchema } : {}),
      },
      toolName: request.toolName ?? request.kind,
      expiresInMinutes: request.expiresInMinutes,
      ...(request.approval !== undefined ? { policy: request.approval as ApprovalPolicy } : {}),
    })),
  z
    .strictObject({
      kind: z.literal('question'),
      preamble: z.string().optional(),
      questions: z.array(z.unknown()),
      expiresInMinutes: minutes,
    })
    .transform(({ expiresInMinutes, ...raised }): RaisedByHandler => ({
      raised: raised as RaisedRequest,
      toolName: raised.kind,
      expiresInMinutes,
    })),
  z
    .strictObject({
      kind: z.literal('client_tool'),
      toolName: z.string().min(1, 'a client tool request needs a toolName'),
      toolCallId: toolCallId.optional(),
      title: z.string().min(1).max(MAX_TITLE_CHARS, `a title is at most ${MAX_TITLE_CHARS} characters`).optional(),
      args: jsonValue,
      argsSchema: jsonObject.optional(),
      timeoutSeconds: z.number().positive().optional(),
    })
    .transform((request): RaisedByHandler => ({
      raised: {
        kind: request.kind,
        args: request.args ?? null,
        clientKind: request.toolName,
        ...(request.title !== undefined ? { title: request.title } : {}),
        ...(request.argsSchema !== undefined ? { argsSchema: request.argsSchema } : {}),
        ...(request.timeoutSeconds !== undefined ? { timeoutSeconds: request.timeoutSeconds } : {}),
      },
      toolName: request.toolName,
      ...(request.toolCallId !== undefined ? { toolCallId: request.toolCallId } : {}),
    })),
  z
    .strictObject({
      kind: z.literal('url'),
      url: z.string(),
      title: z.string().optional(),
      message: z.string().optional(),
      expiresInMinutes: minutes,
    })
    .transform(({ expiresInMinutes, ...raised }): RaisedByHandler => ({
      raised,
      toolName: raised.kind,
      expiresInMinutes,
    })),
]);

/** A handler's reply as Heed reads it (a remote agent's JSON body too). */
export const handlerReplySchema = z.object({
  content: z.string().optional(),
  pendingActions: z.array(requestSchema).optional(),
  metadata: jsonObject.optional(),
});

/** A reply, read and with every request checked by its kind. */
export interface CheckedReply {
  content?: string;
  metadata?: JsonObject;
  pending: Array<RaisedByHandler & { request: ActionRequest }>;
}

/**
 * Reads what a handler returned: its shape, then each request by its kind's own check (a question's
 * questions, an approval's argsSchema and policy). Anything wrong is an `invalid_request` naming where.
 */
export function checkReply(value: unknown, from: string): CheckedReply {
  const parsed = handlerReplySchema.safeParse(value ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || 'reply'}: ${issue.message}`)
      .join('; ');
    throw new HeedError('invalid_request', `${from} returned a reply Heed cannot read (${problems}).`);
  }
  const seen = new Set<string>();
  const pending = (parsed.data.pendingActions ?? []).map((entry, index) => {
    const where = `pendingActions[${index}]`;
    if (entry.toolCallId !== undefined) {
      if (seen.has(entry.toolCallId))
        throw new HeedError('invalid_request', `${from} gave the toolCallId "${entry.toolCallId}" twice (${where}).`, {
          details: { index },
        });
      seen.add(entry.toolCallId);
    }
    try {
      if (entry.policy !== undefined) checkApprovalPolicy(entry.policy, `${where}.approval`);
      return { ...entry, request: kindOf(entry.raised.kind).checkRequest(entry.raised as never) as ActionRequest };
    } catch (error) {
      if (!HeedError.isInstance(error)) throw error;
      throw new HeedError(
        'invalid_request',
        `${from} asked for something Heed cannot ask (${where}): ${error.message}`,
        {
          details: { ...(error.details ?? {}), index },
        },
      );
    }
  });
  const { content, metadata } = parsed.data;
  return {
    ...(content !== undefined && content !== '' ? { content } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    pending,
  };
}
