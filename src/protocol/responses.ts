import { z } from 'zod';
import { errorStatus } from '../errors.js';
import { eventRecord } from './events.js';
import { actionView, conversationStatus, conversationView, isoTime, json, messageView, warning } from './views.js';

/* The bodies the HTTP routes answer with (src/http/routes/), beside the views they are made of. */

/**
 * Every error of the API: `code` is what clients match on (src/errors.ts lists them). A plain string, not
 * an enum, so a client keeps reading the errors of a newer server that added one.
 */
export const errorBody = z.strictObject({
  error: z.strictObject({
    code: z.string().describe(
      `Stable code clients match on: ${Object.keys(errorStatus)
        .map((code) => `\`${code}\``)
        .join(', ')}. A 503 \`store_unavailable\` (the database is out of reach or full) carries \`Retry-After\` and \`details.retryAfterSeconds\`.`,
    ),
    message: z.string().describe('A sentence a person can read.'),
    details: z.record(z.string(), json).optional(),
  }),
});

export const agentInfo = z.strictObject({
  name: z.string(),
  description: z.string().optional(),
  capabilities: z.strictObject({ toolApproval: z.boolean(), questions: z.boolean(), intake: z.boolean(), clientTools: z.boolean() }),
});

/** How a turn ended, as the library and the HTTP API return it. */
export const turnResult = z.strictObject({
  status: z.enum(['completed', 'requires_action', 'cancelled', 'failed']),
  conversationId: z.string(),
  messages: z.array(messageView).describe('Messages this turn wrote, in order.'),
  pendingActions: z.array(actionView).optional(),
  warnings: z.array(warning).optional(),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
});

export const snapshot = z.strictObject({
  conversation: conversationView,
  messages: z.array(messageView),
  pendingActions: z.array(actionView).optional(),
  runtime: z.strictObject({ status: conversationStatus, pendingActionIds: z.array(z.string()) }),
  hasEarlierMessages: z.literal(true).optional().describe('Present when older messages exist than the first one here: ask again with `?before=<its id>`.'),
});

export const rememberedTool = z.strictObject({
  toolName: z.string(),
  rememberedBy: z.string().nullable().describe('The user id of whoever said "remember"; null for an anonymous caller.'),
  rememberedAt: isoTime,
});

export const agentsResponse = z.strictObject({ agents: z.array(agentInfo) });
export const conversationsResponse = z.strictObject({ conversations: z.array(conversationView) });
export const actionsResponse = z.strictObject({ actions: z.array(actionView) });
export const inboxResponse = z.strictObject({
  actions: z.array(actionView),
  nextCursor: z.string().optional().describe('Pass as `cursor` for the next page; absent on the last page.'),
});
export const eventsResponse = z.strictObject({
  events: z.array(eventRecord),
  hasMore: z.boolean().describe('True when more events follow the last one returned.'),
});
export const cancelResponse = z.strictObject({ status: conversationStatus, cancelled: z.boolean() });
export const rememberedToolsResponse = z.strictObject({ tools: z.array(rememberedTool) });
export const healthResponse = z.strictObject({ ok: z.literal(true) });

export type ErrorBody = z.output<typeof errorBody>;
export type AgentInfo = z.output<typeof agentInfo>;
export type TurnResult = z.output<typeof turnResult>;
export type ConversationSnapshot = z.output<typeof snapshot>;
