import { z } from 'zod';
import { HeedError } from '../errors.js';
import { jsonValue, type JsonObject } from '../protocol/values.js';
import { agentRequest, kindOf, readRaised, type RaisedRequest } from '../kinds/index.js';
import { checkApprovalPolicy, type ApprovalPolicy } from '../kinds/approval-policy.js';
import type { ActionRequest } from '../types.js';

/** A handler's request, made into what a tool would raise with `ctx.request`, with what the action keeps besides. */
export interface RaisedByHandler {
  raised: RaisedRequest;
  /** The action's `toolName`: the request's own, else the kind's name. */
  toolName: string;
  expiresInMinutes?: number;
  policy?: ApprovalPolicy;
  /** The call's id as the agent knows it (a client tool's), so the page's answer can be matched to it. */
  toolCallId?: string;
}

const jsonObject = z.record(z.string(), jsonValue);

/** A handler's reply as Heed reads it (a remote agent's JSON body too). */
export const handlerReplySchema = z.object({
  content: z.string().optional(),
  // Each kind's request as its `raise` writes it (src/kinds/raise.ts), as for POST /api/requests.
  pendingActions: z.array(agentRequest).optional(),
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
  const pending = (parsed.data.pendingActions ?? []).map((written, index) => {
    const where = `pendingActions[${index}]`;
    const read = readRaised(written);
    const entry: RaisedByHandler = {
      raised: read.raised as RaisedRequest,
      toolName: read.toolName ?? String(written.kind),
      ...(read.expiresInMinutes !== undefined ? { expiresInMinutes: read.expiresInMinutes } : {}),
      ...(read.policy !== undefined ? { policy: read.policy as ApprovalPolicy } : {}),
      ...(read.toolCallId !== undefined ? { toolCallId: read.toolCallId } : {}),
    };
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
