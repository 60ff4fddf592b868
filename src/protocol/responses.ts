import { z } from 'zod';
import { eventRecord } from './events.js';
import { actionView, conversationStatus, conversationView, isoTime, messageView, warning } from './views.js';

/* The bodies the HTTP routes answer with (src/http/routes/), beside the views they are made of. */

export { errorBody, type ErrorBody } from './error-body.js';

export const agentInfo = z.strictObject({
  name: z.string(),
  description: z.string().optional(),
  capabilities: z.strictObject({
    toolApproval: z.boolean(),
    questions: z.boolean(),
    intake: z.boolean(),
    clientTools: z.boolean(),
  }),
  busyPolicy: z
    .literal('queue')
    .optional()
    .describe(
      'Present when a message sent while a turn runs is queued (202) and run after it; absent, such a message is refused (409 `conversation_busy`).',
    ),
});

const queuedPlace = z.strictObject({
  messageId: z.string().describe('The id its user message has once its turn starts.'),
  position: z.number().int().min(1).describe('Its place in the queue when it was recorded: 1 runs next.'),
});

/**
 * How a turn ended, as the library and the HTTP API return it; or, for a message sent while a turn ran
 * under `busyPolicy: 'queue'`, `queued` with its place (its turn runs later: follow the event log).
 */
export const turnResult = z.strictObject({
  status: z.enum(['completed', 'requires_action', 'cancelled', 'failed', 'queued']),
  conversationId: z.string(),
  messages: z.array(messageView).describe('Messages this turn wrote, in order (none for a queued message).'),
  pendingActions: z.array(actionView).optional(),
  warnings: z.array(warning).optional(),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  queued: queuedPlace.optional().describe('Only with status `queued`.'),
  settled: z
    .array(actionView)
    .optional()
    .describe(
      'Only in the answer to an answer: the action it settled, as stored (resolution, `resolvedBy`, `channel`, `resolvedAt`); empty for a vote that does not yet decide.',
    ),
});

/**
 * The 202 answer to a message sent while a turn runs, under `busyPolicy: 'queue'`: a `TurnResult` whose status
 * is `queued` (so a client generated from the document reads both answers as one shape), with `queued` set.
 */
export const queuedResult = turnResult.extend({
  status: z.literal('queued'),
  messages: z.array(messageView).max(0).describe('Always empty: nothing runs yet.'),
  queued: queuedPlace,
});

/** A message waiting for the running turn, as a conversation's snapshot lists it. */
export const queuedMessageView = z.strictObject({
  id: z.string(),
  text: z.string(),
  by: z.string().nullable().describe('The user id of who sent it; null for an anonymous caller.'),
  queuedAt: isoTime,
});

export const snapshot = z.strictObject({
  conversation: conversationView,
  messages: z.array(messageView),
  pendingActions: z.array(actionView).optional(),
  runtime: z.strictObject({ status: conversationStatus, pendingActionIds: z.array(z.string()) }),
  queuedMessages: z
    .array(queuedMessageView)
    .optional()
    .describe(
      'Messages sent while the turn runs, in the order they will run (`busyPolicy: "queue"`); omitted when none waits.',
    ),
  hasEarlierMessages: z
    .literal(true)
    .optional()
    .describe('Present when older messages exist than the first one here: ask again with `?before=<its id>`.'),
});

export const rememberedTool = z.strictObject({
  toolName: z.string(),
  rememberedBy: z.string().nullable().describe('The user id of whoever said "remember"; null for an anonymous caller.'),
  rememberedAt: isoTime,
});

export const agentsResponse = z.strictObject({ agents: z.array(agentInfo) });
export const conversationsResponse = z.strictObject({ conversations: z.array(conversationView) });
export const actionsResponse = z.strictObject({ actions: z.array(actionView) });
/** `POST …/actions/{actionId}/extend`: the action with its new deadline (`expiresAt` absent: it never lapses). */
export const extendResponse = z.strictObject({ action: actionView });
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
export const meResponse = z.strictObject({
  userId: z.string().nullable().describe('The user id the caller is known by; null for an anonymous caller.'),
  groups: z
    .array(z.string())
    .optional()
    .describe(
      'The groups the caller is in (`group:<name>` entries of approvers and assignees name them); absent when none.',
    ),
  operator: z
    .literal(true)
    .optional()
    .describe(
      'Present for the admins of `auth.admins` and the operators of `notify.operators` (the deliveries and the queue are theirs).',
    ),
});

const queueWaits = z.strictObject({
  pending: z.number().int().describe('Actions waiting now.'),
  oldestCreatedAt: z.string().nullable().describe('When the oldest of them was asked.'),
  over1Day: z.number().int(),
  over3Days: z.number().int(),
  over7Days: z.number().int(),
  decisions: z.number().int().describe('Answers people gave in the window (`days`).'),
  medianSeconds: z.number().nullable().describe('Median time from request to answer (null: no answers).'),
  p90Seconds: z.number().nullable().describe('90th percentile of the same.'),
});
export const queueResponse = queueWaits.extend({
  days: z.number().int().describe('The window of the decision figures, in days.'),
  agents: z.array(queueWaits.extend({ agent: z.string() })).describe('The same figures for each agent, by name.'),
});
export type QueueView = z.output<typeof queueResponse>;
export type QueueWaits = z.output<typeof queueWaits>;

export type AgentInfo = z.output<typeof agentInfo>;
export type Me = z.output<typeof meResponse>;

/** `GET|PUT|DELETE /api/me/delegation`: the caller's delegation and the ones they hold (docs/approvals.md, Delegation). */
export const delegationResponse = z.strictObject({
  delegation: z
    .strictObject({
      to: z.string().describe('The user id who answers for the caller meanwhile.'),
      until: isoTime.optional().describe('When it ends by itself; absent: until cleared.'),
      since: isoTime.describe('When it was set.'),
    })
    .nullable()
    .describe("The caller's own delegation in force; null when none."),
  holding: z
    .array(z.strictObject({ from: z.string(), until: isoTime.optional() }))
    .describe('The people whose delegation to the caller is in force: the caller answers for them.'),
});
export type DelegationView = z.output<typeof delegationResponse>;

export const demoResponse = z.strictObject({
  users: z
    .array(
      z.strictObject({
        userId: z.string(),
        name: z.string().describe('How a sign-in page names them ("Try as Ada").'),
        token: z
          .string()
          .describe('A bearer token that signs in as this user: demo-only, handed to anyone who asks this server.'),
      }),
    )
    .describe('The people the demo signs in as.'),
});

export type DemoInfo = z.output<typeof demoResponse>;
export type TurnResult = z.output<typeof turnResult>;
export type QueuedMessageView = z.output<typeof queuedMessageView>;
export type ConversationSnapshot = z.output<typeof snapshot>;

const personalToken = z.strictObject({
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(['read', 'answer', 'converse', 'admin'])),
  createdAt: isoTime,
  lastUsedAt: isoTime.nullable().describe('Written at most once a minute; null: never used.'),
  expiresAt: isoTime.nullable().describe('null: it does not lapse.'),
});

/** `GET /api/me/tokens`: the caller's personal tokens, never their secrets (docs/auth.md). */
export const personalTokenList = z.strictObject({ tokens: z.array(personalToken) });

/** `POST /api/me/tokens`: the token made, with its secret, shown this once. */
export const personalTokenCreated = personalToken.extend({
  token: z.string().describe('The secret (`heed_pat_…`), sent as `Authorization: Bearer`; shown only now.'),
});

export type PersonalToken = z.output<typeof personalToken>;
export type PersonalTokenCreated = z.output<typeof personalTokenCreated>;
export type PersonalTokenScope = PersonalToken['scopes'][number];
