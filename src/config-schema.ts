/**
 * The config checked at start: every key of `defineConfig(...)` and `createHeed(...)`, strictly, so a
 * typo or a value of the wrong shape stops the start with its path instead of being ignored. Functions
 * and objects made by libraries (models, tools, stores, hooks) are checked for their kind only.
 *
 * The shapes are the config's one source: its types (src/config.ts), its defaults (`defaults`) and the
 * tables of docs/http.md are all derived from them. A chat platform's keys live in its own file
 * (src/channels/chat-sdk/platforms/), joined here through the platforms' list.
 */
import { isIP } from 'node:net';
import { approvalPolicyProblems } from './kinds/approval-policy.js';
import { clip } from './kinds/clip.js';
import { z } from 'zod';
import type { AgentHandler } from './agents/handler-types.js';
import type { Caller } from './caller.js';
import {
  booleanOption,
  channelConfigShapes,
  duration,
  fn,
  httpUrl,
  strict,
  wholeCount,
  withMethods,
  type ChannelUser,
} from './config-shapes.js';
import type { AgentModel } from './engine/turn/model-spec.js';
import type { Logger } from './logger.js';
import { MAX_MESSAGE_CHARS } from './protocol/conversation.js';
import { mcpServerConfig } from './mcp/config.js';
import type { BeforeInputRequest } from './mcp/types.js';
import type { Store } from './store/store.js';
import type { HeedTool } from './tool.js';
import type { ActionRecord, AskedQuestion, ConversationRecord } from './types.js';
import type { ActionView } from './views.js';
import { HeedError } from './errors.js';

export type { ChannelUser };

// Each option carries its doc line (`.describe`) and, when it has one, its default (`.default`): the engine
// reads its defaults from here (`defaults` below) and docs/http.md's config tables are made from here
// (`npm run docs:config`, checked by config-docs.test.ts).

const limitsShape = {
  agentDepth: wholeCount(0)
    .default(3)
    .describe(
      "How deep agents may call agents (an agent's `agents`): a person's conversation is depth 0, its child 1; a call that would go deeper is a tool error the model reads.",
    ),
  childrenPerTurn: wholeCount(0)
    .default(8)
    .describe(
      `Child conversations one turn may start (its \`agent_<name>\` calls since the person's message); a call past it starts nothing and is a tool error the model reads (warning \`child_limit_reached\`). A task is a message: over ${MAX_MESSAGE_CHARS.toLocaleString('en-US')} characters it is refused the same way.`,
    ),
  maxStateBytes: wholeCount(1)
    .default(1024 * 1024)
    .describe('A paused state bigger than this is not paused (warning `pause_state_too_large`).'),
  clientToolOutputBytes: wholeCount(1)
    .default(64 * 1024)
    .describe('Largest client tool output accepted, in bytes of JSON.'),
  maxTokensPerConversation: wholeCount(1)
    .optional()
    .describe('Tokens a conversation may spend; past it, messages and answers get 402 `budget_reached`.'),
  maxMetadataBytes: wholeCount(0)
    .default(16 * 1024)
    .describe('Largest conversation `metadata`, in bytes of JSON; past it 413 `metadata_too_large`.'),
  maxMessagesPerConversation: wholeCount(1)
    .default(5000)
    .describe(
      'Stored messages (every role) a conversation may hold; past it, a new message gets 400 `message_limit_reached` (start a new conversation or branch from an earlier message).',
    ),
  maxBranchBytes: wholeCount(1)
    .default(4 * 1024 * 1024)
    .describe(
      'Largest copy a branch makes: the messages it copies, in bytes of JSON; past it 413 `payload_too_large` and no branch is made (branch from an earlier message).',
    ),
  conversationsPerMinute: wholeCount(0)
    .default(30)
    .describe(
      'Conversations one caller may start per minute over HTTP (`POST /api/conversations`, a branch, a new AI SDK chat), by user id or client address; 0 = no limit; past it 429 `rate_limited` with `Retry-After`.',
    ),
  maxQueuedMessages: wholeCount(1)
    .default(10)
    .describe(
      "Messages that may wait in one conversation for its running turn (`busyPolicy: 'queue'`); past it 409 `queue_full`, nothing recorded.",
    ),
  mcpWaitingPerCaller: wholeCount(1)
    .default(20)
    .describe(
      'Calls of the MCP server (`mcp.server`) one caller may have waiting for a person at once; past it the call is a tool error.',
    ),
  streamsPerCaller: wholeCount(1)
    .default(16)
    .describe(
      'Live streams (SSE) and long polls (`GET /api/requests/:id/wait`) one caller may hold open at once; past it 429 `rate_limited` with `Retry-After`.',
    ),
  streamQueueBytes: wholeCount(1024)
    .default(1024 * 1024)
    .describe(
      'Bytes one stream may have sent and its client not yet read; past it the stream is dropped (resume with `Last-Event-ID`).',
    ),
};

const hitlShape = {
  timeoutMinutes: duration.default(1440).describe('Minutes before an action lapses; fractions allowed; 0 = never.'),
  onTimeout: z
    .enum(['deny', 'cancel'], { error: 'expected "deny" or "cancel"' })
    .default('deny')
    .describe('What a lapse does, frozen at pause time: `deny` answers for the person, `cancel` ends the turn.'),
  lapseMessage: z
    .string({ error: 'expected a sentence' })
    .min(1, 'expected a sentence')
    .max(1000, 'expected at most 1000 characters')
    .optional()
    .describe(
      'What the model reads for a request nobody answered in time (a lapse under `deny`, or a page that was never opened), instead of "Nobody answered in time, so the call was not approved and did not run."',
    ),
  resolveWaitMs: duration
    .default(3000)
    .describe('How long an answer that meets another being recorded retries before giving up.'),
  authorizeResolve: fn<
    (
      caller: Caller | null,
      target: { conversation: ConversationRecord; action: ActionRecord },
    ) => boolean | Promise<boolean>
  >('authorizeResolve(caller, target)')
    .optional()
    .describe('When set, decides for everyone (the owner too) who may answer; false means 403 `action_forbidden`.'),
  validateApprovedArgs: booleanOption
    .default(true)
    .describe(
      "Check edited arguments (`approvedArgs`) against the tool's schema (400 `invalid_approved_args` naming the field); false takes them as sent.",
    ),
  allowRememberApproval: booleanOption
    .default(true)
    .describe(
      'Let an approval be remembered for later calls of its tool (`remember: true`); false also stops earlier ones from applying.',
    ),
  remind: strict({
    beforeMinutes: z
      .array(z.number({ error: 'expected a number' }).positive('expected more than 0'), {
        error: 'expected a list of minutes, such as [60, 10]',
      })
      .max(10, 'expected at most 10 reminders'),
  })
    .default({ beforeMinutes: [] })
    .describe(
      'Reminders before a request lapses, through the same webhooks, mail and channels as the request: `{ beforeMinutes: [60, 10] }` sends one an hour and one ten minutes before; none by default.',
    ),
  maxExtendMinutes: duration
    .default(10080)
    .describe(
      'The furthest an extension (`POST …/actions/{actionId}/extend`) may put a deadline, in minutes from now; 0 = no bound, and `minutes: 0` (never lapse) is allowed.',
    ),
};

const intakeShape = {
  when: z
    .enum(['thread-start', 'every-turn'], { error: 'expected "thread-start" or "every-turn"' })
    .default('thread-start')
    .describe('`thread-start` asks once per conversation; `every-turn` before each turn.'),
  preamble: z.string({ error: 'expected a string' }).optional(),
  // Each question is checked in full when the agent is set up (with the rules of asked questions).
  questions: z.array(
    z.custom<AskedQuestion>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), {
      error: 'expected a question { id, prompt, ... }',
    }),
    {
      error: 'expected a list of questions',
    },
  ),
  timeoutMinutes: duration.optional().describe('Intake questions never lapse unless this is set.'),
};

const webhookShape = {
  url: httpUrl.describe('Where the webhook is posted.'),
  secret: z
    .string({ error: 'expected a string' })
    .startsWith('whsec_', 'expected a Standard Webhooks secret (whsec_ followed by base64)')
    .describe('Signs each delivery per Standard Webhooks (`whsec_…`).'),
  events: z
    .array(
      z.enum(['action.required', 'action.reminder', 'action.resolved', 'action.expired', 'action.cancelled'], {
        error: 'expected action.required, action.reminder, action.resolved, action.expired or action.cancelled',
      }),
    )
    .optional()
    .describe('Only these event types (default: all five).'),
  agents: z
    .array(z.string({ error: 'expected an agent name' }))
    .optional()
    .describe('Only actions of these agents (default: every agent).'),
};
type EmailRecipients = (target: {
  action: ActionView;
  conversation: { id: string; agent: string; ownerId: string | null };
  /**
   * The delegations in force for the people the action waits on (its approvers, else the conversation's
   * owner): `{ for, to }` user ids, so their delegates can be mailed too (docs/approvals.md, Delegation).
   */
  delegates: Array<{ for: string; to: string }>;
}) => string | string[] | null | undefined;
const emailShape = {
  transport: z
    .union([z.string().min(1), z.record(z.string(), z.unknown())], {
      error: 'expected an smtp:// URL or nodemailer SMTP options',
    })
    .describe("A nodemailer transport: an `smtp://` / `smtps://` URL, or nodemailer's SMTP options."),
  from: z
    .string({ error: 'expected a string' })
    .min(3, 'expected a sender address')
    .describe('The sender, e.g. `Heed <heed@example.com>`.'),
  to: fn<EmailRecipients>('to({ action, conversation })').describe(
    'The recipients of an action that waits: addresses, or null for none.',
  ),
};
const pushShape = {
  subject: z
    .string({ error: 'expected a mailto: or https: URL' })
    .regex(/^(mailto:|https:\/\/)/, 'expected a mailto: or https: URL')
    .describe("Who runs this server, for the push services (VAPID's `sub`): `mailto:ops@example.com` or an https URL."),
  vapid: strict({
    publicKey: z
      .string({ error: 'expected a string' })
      .min(80)
      .describe('The VAPID public key (base64url, as `web-push generate-vapid-keys` prints it).'),
    privateKey: z
      .string({ error: 'expected a string' })
      .min(40, 'expected the VAPID private key')
      .describe('The VAPID private key (base64url).'),
  })
    .optional()
    .describe('The key pair push requests are signed with. Default: a pair made once and kept in the store.'),
  allowEndpoints: z
    .array(z.string({ error: 'expected host:port' }).regex(/^[^\s/:]+:\d+$/, 'expected host:port'), {
      error: 'expected a list of host:port entries',
    })
    .default([])
    .describe(
      'Push endpoints allowed beside https ones on public addresses (`host:port`, plain http too): for tests and private push services.',
    ),
};
const retryShape = {
  firstDelayMs: duration.default(5_000).describe('Wait before the second attempt; each further wait doubles.'),
  maxDelayMs: duration.default(3_600_000).describe('Longest wait between attempts (an hour).'),
  giveUpAfterMs: duration
    .default(86_400_000)
    .describe('A delivery not sent this long after it was written fails for good (a day).'),
};
const notifyShape = {
  publicUrl: httpUrl
    .optional()
    .describe('Base of every answer link, e.g. `https://heed.example.com`. Without it, notifications carry no links.'),
  webhooks: z
    .array(strict(webhookShape), { error: 'expected a list of webhooks' })
    .optional()
    .describe('Webhooks signed per Standard Webhooks (docs/notifications.md).'),
  email: strict(emailShape)
    .optional()
    .describe('Who is mailed about an action that waits, and how (docs/notifications.md).'),
  push: strict(pushShape)
    .optional()
    .describe('Web Push to the browsers and phones people turn on in the console (docs/notifications.md).'),
  linkSecret: z
    .string({ error: 'expected a string' })
    .min(32, 'expected at least 32 characters')
    .optional()
    .describe('Signs answer links (at least 32 characters). Default: a random secret made once and kept in the store.'),
  linkTtlMinutes: z
    .number({ error: 'expected a number' })
    .positive('expected more than 0')
    .default(7 * 24 * 60)
    .describe('How long an answer link lasts when its action never lapses (never longer than the action); a week.'),
  operators: z
    .array(z.string({ error: 'expected a user id' }).min(1))
    .optional()
    .describe(
      'User ids that may use the operator routes (`GET /api/deliveries`, `GET /api/queue`, `GET /metrics`), beside `auth.admins`. Nobody else may, anonymous callers never.',
    ),
  callbackSecret: z
    .string({ error: 'expected a string' })
    .startsWith('whsec_', 'expected a Standard Webhooks secret (whsec_ followed by base64)')
    .optional()
    .describe(
      'Signs the POSTs to the `callbackUrl` of requests made with `POST /api/requests` (Standard Webhooks, `whsec_…`).',
    ),
  callbackHosts: z
    .array(z.string({ error: 'expected a host or host:port' }).min(1, 'expected a host or host:port'), {
      error: 'expected a list of hosts (host or host:port)',
    })
    .default([])
    .describe(
      'Where a `callbackUrl` may point: `host` (any port) or `host:port` entries. Empty: every `callbackUrl` is refused.',
    ),
  retry: strict(retryShape).optional().describe('When failed deliveries are tried again.'),
  attemptTimeoutMs: z
    .number({ error: 'expected a number' })
    .positive('expected more than 0')
    .default(30_000)
    .describe('How long one attempt may take before it counts as failed; a claim lasts twice this.'),
  pollIntervalMs: z
    .number({ error: 'expected a number' })
    .positive('expected more than 0')
    .default(1_000)
    .describe('How often the deliverer looks for due deliveries (besides right after each commit).'),
};
const channelStateShape = {
  redis: z
    .string({ error: 'expected a redis:// URL' })
    .refine(
      (value) => /^rediss?:\/\/[^\s]+$/i.test(value) && URL.canParse(value),
      'expected a redis:// or rediss:// URL',
    )
    .describe(
      "The Redis server that keeps Chat SDK's state (`redis://[user:password@]host:6379[/db]`), through `@chat-adapter/state-redis`. Default: Heed's own store.",
    ),
  keyPrefix: z
    .string({ error: 'expected a string' })
    .min(1, 'expected a key prefix')
    .default('chat-sdk')
    .describe("What every key Chat SDK writes in Redis starts with (Chat SDK's own default)."),
};

/** `channels`: where Chat SDK keeps its state, and each chat platform registered, with its own keys. */
const channelsShape = {
  state: strict(channelStateShape)
    .optional()
    .describe(
      "Where Chat SDK's state (subscriptions, locks, cache) is kept for every chat platform: Heed's own store, unless `redis` names a server (docs/channels.md).",
    ),
};
/** The shape of `channels` with the platforms listed now (a test may add one: docs/architecture.md). */
function channelsSchema() {
  const platforms = Object.fromEntries(
    [...channelConfigShapes].map(([name, { config, about }]) => [name, config.optional().describe(about)]),
  );
  return strict({ ...channelsShape, ...platforms });
}
const agentNotifyShape = { webhooks: notifyShape.webhooks, email: notifyShape.email };

const toolsSchema = z
  .record(
    z.string(),
    z.custom<HeedTool>((value) => typeof value === 'object' && value !== null, {
      error: 'expected a tool made with tool({ ... })',
    }),
    {
      error: 'expected an object of tools by name',
    },
  )
  // A tool's approval policy is plain data (or functions): checked here so the start names its path.
  .superRefine((tools, context) => {
    for (const [name, definition] of Object.entries(tools)) {
      const approval = (definition as { approval?: unknown }).approval;
      for (const problem of approvalPolicyProblems(approval, 'approval')) {
        const [field, ...rest] = problem.split(': ');
        context.addIssue({
          code: 'custom',
          path: [name, ...field.split('.')],
          message: rest.join(': ').replace(/\.$/, ''),
        });
      }
    }
  });

// An agent's own settings win over the server's, so they have no default of their own.
const busyPolicy = z.enum(['reject', 'queue'], { error: 'expected "reject" or "queue"' });
const ask = booleanOption;
const agentShape = {
  name: z.string({ error: 'expected a string' }).min(1, 'expected a name'),
  description: z.string({ error: 'expected a string' }).optional(),
  agents: z
    .array(z.string({ error: 'expected an agent name' }))
    .optional()
    .describe(
      'Agents this one may call: each is offered to the model as a tool `agent_<name>({ task })` (docs/concepts.md, Agents that call agents).',
    ),
  model: withMethods<AgentModel>('expected an AI SDK language model', 'doStream')
    .optional()
    .describe(
      "An AI SDK language model: the agent runs on Heed's own loop. Exactly one of `model`, `handler`, `remote`.",
    ),
  handler: withMethods<AgentHandler>(
    'expected a handler: { processMessage(input), resolveAction?(input) }',
    'processMessage',
  )
    .optional()
    .describe(
      'Your own code as the agent: `processMessage`, and `resolveAction` for answers (docs/agents-elsewhere.md).',
    ),
  remote: strict({
    url: httpUrl,
    secret: z.string({ error: 'expected a string' }).min(1, 'expected a Standard Webhooks secret (whsec_…)'),
    timeoutSeconds: z.number({ error: 'expected a number' }).positive('expected more than 0').optional(),
    maxReplyBytes: z
      .number({ error: 'expected a number' })
      .int('expected a whole number of bytes')
      .positive('expected more than 0')
      .optional(),
  })
    .optional()
    .describe('An agent in another service, called with signed HTTP POSTs (docs/agents-elsewhere.md).'),
  capabilities: strict({
    toolApproval: booleanOption.optional(),
    questions: booleanOption.optional(),
    intake: booleanOption.optional(),
    clientTools: booleanOption.optional(),
  })
    .optional()
    .describe(
      'What a `handler` or `remote` agent can ask, as `GET /api/agents/:name` reports it; unset ones are false. An agent with `model` has them from its tools.',
    ),
  instructions: z.string({ error: 'expected a string' }).optional(),
  tools: toolsSchema.optional(),
  intake: strict(intakeShape).optional(),
  ask: ask.optional(),
  hitl: strict({
    timeoutMinutes: hitlShape.timeoutMinutes.unwrap().optional(),
    onTimeout: hitlShape.onTimeout.unwrap().optional(),
    validateApprovedArgs: hitlShape.validateApprovedArgs.unwrap().optional(),
    allowRememberApproval: hitlShape.allowRememberApproval.unwrap().optional(),
    lapseMessage: hitlShape.lapseMessage,
    remind: hitlShape.remind.unwrap().optional(),
    maxExtendMinutes: hitlShape.maxExtendMinutes.unwrap().optional(),
  }).optional(),
  maxSteps: wholeCount(1).default(20).describe('Model calls per turn before it stops (warning `max_steps`).'),
  mcpServers: z.record(z.string(), mcpServerConfig, { error: 'expected an object of MCP servers by name' }).optional(),
  beforeInputRequest: fn<BeforeInputRequest>('beforeInputRequest(request)').optional(),
  notify: strict(agentNotifyShape).optional(),
  busyPolicy: busyPolicy.optional(),
};

/** An agent runs one way: on Heed's loop (`model`), as the host's code (`handler`) or in another service (`remote`). */
function oneWayToRun(agent: Record<string, unknown>, context: z.RefinementCtx): void {
  const set = ['model', 'handler', 'remote'].filter((key) => agent[key] !== undefined);
  if (set.length === 1) {
    if (set[0] === 'model') {
      if (agent.capabilities !== undefined)
        context.addIssue({
          code: 'custom',
          path: ['capabilities'],
          message: 'not used by an agent with model (its tools say what it can ask; only with handler or remote)',
        });
      return;
    }
    // What only Heed's own loop uses: refused rather than ignored.
    for (const key of ['instructions', 'tools', 'intake', 'ask', 'mcpServers', 'beforeInputRequest'])
      if (agent[key] !== undefined)
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `not used by an agent with ${set[0]} (only with model)`,
        });
    return;
  }
  context.addIssue({
    code: 'custom',
    path: set.length === 0 ? ['model'] : [set[1]],
    message:
      set.length === 0
        ? 'expected one of model, handler or remote (missing)'
        : `expected only one of model, handler or remote, got ${set.join(' and ')}`,
  });
}

const groupNames = z.array(z.string({ error: 'expected a group name' }).min(1, 'expected a group name'), {
  error: 'expected a list of group names',
});

const userShape = {
  userId: z.string({ error: 'expected a string' }).min(1, 'expected a user id'),
  groups: groupNames.optional(),
  data: z.record(z.string(), z.unknown(), { error: 'expected an object' }).optional(),
};

const oidcShape = {
  issuer: httpUrl.describe("The provider's issuer URL (https; http only on this machine)."),
  clientId: z.string({ error: 'expected a string' }).min(1, 'expected a client id'),
  clientSecret: z.string({ error: 'expected a string' }).min(1, 'expected a client secret').optional(),
  name: z.string({ error: 'expected a string' }).min(1).optional().describe('Shown as "Sign in with <name>".'),
  scopes: z.array(z.string({ error: 'expected a scope' }), { error: 'expected a list of scopes' }).optional(),
  userClaim: z.string({ error: 'expected a claim name' }).min(1).optional().describe('Default `sub`.'),
  groupsClaim: z.string({ error: 'expected a claim name' }).min(1).optional().describe('Default `groups`.'),
  allowedDomains: z
    .array(z.string({ error: 'expected a domain' }).min(1), { error: 'expected a list of domains' })
    .optional()
    .describe('Only people with a verified email at these domains may sign in.'),
  publicUrl: httpUrl.optional().describe("Heed's address as browsers reach it (the callback is under it)."),
};

const headerName = z
  .string({ error: 'expected a header name' })
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected a header name (x-forwarded-user)');

const assertionShape = {
  header: headerName.describe(
    'The header that carries the signed JWT (`cf-access-jwt-assertion`, `x-goog-iap-jwt-assertion`).',
  ),
  jwksUrl: z
    .string({ error: 'expected a URL' })
    .regex(/^https?:\/\/\S+$/, 'expected an http(s) URL')
    .describe("Where the proxy's signing keys are published (a JWKS)."),
  issuer: z.string({ error: 'expected a string' }).min(1).describe('The `iss` the JWT must carry.'),
  audience: z.string({ error: 'expected a string' }).min(1).describe('The `aud` the JWT must carry.'),
};

const trustedHeaderShape = {
  user: headerName.describe('The header that names the user (`x-forwarded-email`, `x-auth-request-user`).'),
  groups: headerName.optional().describe("The header with the user's groups, separated by commas."),
  fromAddresses: z
    .array(
      z
        .string({ error: 'expected an IP address' })
        .refine((value) => isIP(value) !== 0, 'expected an IP address (10.0.0.5), not a range or a host name'),
      { error: 'expected a list of IP addresses' },
    )
    .optional()
    .describe("The proxy's own IP addresses: the headers count only on a connection from one of them."),
  assertion: strict(assertionShape)
    .optional()
    .describe(
      'A signed JWT the proxy adds: the headers count only when it verifies; the user is then its `email`, else `sub`.',
    ),
};

/** A proxy's word is taken only from its address or with its signature: a header alone anyone can send. */
function provesTheProxy(value: { fromAddresses?: unknown; assertion?: unknown }, context: z.RefinementCtx): void {
  if (value.fromAddresses !== undefined || value.assertion !== undefined) return;
  context.addIssue({
    code: 'custom',
    message:
      'expected fromAddresses or assertion: without one, anyone who reaches the server could send the header and be any user',
  });
}

const authShape = {
  tokens: z
    .record(
      z.string().min(1, 'a token may not be empty'),
      z.union([z.string().min(1), strict(userShape)], {
        error: 'expected { userId } (or the user id alone as a string)',
      }),
      {
        error: 'expected an object of users by token',
      },
    )
    .optional(),
  resolveContext: fn<(request: Request) => Caller | null | Promise<Caller | null>>('resolveContext(request)')
    .optional()
    .describe('Resolves the caller from a request; wins over `tokens`. Return null for anonymous.'),
  required: z.boolean({ error: 'expected true or false' }).optional(),
  oidc: strict(oidcShape)
    .optional()
    .describe('Sign in with an OpenID Connect provider (docs/auth.md): "Sign in with <name>" in the console.'),
  sessionHours: z
    .number({ error: 'expected a number' })
    .positive('expected more than 0')
    .optional()
    .describe('A signed-in session ends after this many hours without use (default 12).'),
  admins: z
    .array(z.string({ error: 'expected a user id' }).min(1, 'expected a user id'), {
      error: 'expected a list of user ids and group: entries',
    })
    .optional()
    .describe(
      'User ids and `group:<name>` entries who may use the operator routes (the queue, the deliveries, the metrics), beside `notify.operators`.',
    ),
  trustedHeader: strict(trustedHeaderShape)
    .superRefine(provesTheProxy)
    .optional()
    .describe('Take the user from headers an authenticating proxy sets (oauth2-proxy, Cloudflare Access, Google IAP).'),
};

const allowedHosts = z.union(
  [z.literal(true), z.array(z.string({ error: 'expected a host name' }).min(1, 'expected a host name'))],
  {
    error: 'expected a list of host names, or true to allow any',
  },
);

const corsShape = {
  origins: z
    .array(
      z
        .string({ error: 'expected an origin' })
        .regex(
          /^https?:\/\/[^/\s?#*]+$/,
          'expected an origin: a scheme and a host, with the port if any, and nothing after (https://app.example.com)',
        ),
      { error: 'expected a list of origins' },
    )
    .describe(
      'Exact origins (`https://app.example.com`, `http://localhost:5173`) whose pages may call the API, the AI SDK chat endpoint and the streams.',
    ),
};

const days = z.number({ error: 'expected a number of days' }).positive('expected more than 0');

const retentionShape = {
  finishedDays: days.describe(
    'Days after its last change that a conversation with nothing pending, running or queued is deleted, with everything it holds.',
  ),
  auditDays: days
    .optional()
    .describe('Days audit entries are kept (pruned from the front, the chain anchored). Default: forever.'),
};

const optionsShape = {
  agents: z
    .array(strict(agentShape).superRefine(oneWayToRun), { error: 'expected a list of agents' })
    .describe('The agents (docs/concepts.md).'),
  tools: toolsSchema
    .optional()
    .describe("Tools offered to every agent, beside its own; an agent's own tool of the same name wins."),
  ask: ask.optional().describe("Offer every agent the built-in `ask` tool. An agent's own `ask` (true or false) wins."),
  store: withMethods<Store>(
    'expected a store (memoryStore(), sqliteStore(...), postgresStore(...))',
    'migrate',
    'commit',
  )
    .optional()
    .describe(
      'Where conversations are kept. Default: in memory (a pause does not survive a restart); `heed serve` uses SQLite.',
    ),
  hitl: strict(hitlShape)
    .optional()
    .describe(
      'How actions wait for people; an agent may set its own `timeoutMinutes`, `onTimeout`, `validateApprovedArgs`, `allowRememberApproval`, `lapseMessage`.',
    ),
  limits: strict(limitsShape).optional().describe('Limits (docs/http.md#limits).'),
  pendingActionPolicy: z
    .enum(['reject', 'cancel'], { error: 'expected "reject" or "cancel"' })
    .default('reject')
    .describe('A message sent while a pause is open: `reject` (409 `action_pending`) or `cancel` the pause.'),
  busyPolicy: busyPolicy
    .default('reject')
    .describe(
      "A message sent while a turn runs: `reject` (409 `conversation_busy`) or `queue`; an agent's own `busyPolicy` wins.",
    ),
  sweepIntervalMs: duration
    .default(60_000)
    .describe('How often the lapse sweep runs, in ms; 0 turns the timer off (call `expireDue()` yourself).'),
  retention: strict(retentionShape)
    .optional()
    .describe(
      'How long the sweep keeps finished conversations and audit entries (docs/operating.md#retention); without it nothing is deleted.',
    ),
  leaseMs: z
    .number({ error: 'expected a number' })
    .positive('expected more than 0')
    .default(30_000)
    .describe("How long a running turn's claim lasts before another instance may take it over."),
  now: fn<() => Date>('now()').optional().describe('The clock (tests move it).'),
  notify: strict(notifyShape).optional().describe('Webhooks, email and answer links (docs/notifications.md).'),
  // For the types and the docs: the checks put the shape with every platform in its place (`withChannels`).
  channels: strict(channelsShape)
    .optional()
    .describe(
      'Chat workspaces where conversations live: Slack, Telegram, GitHub, Linear, Discord, Teams, Google Chat (docs/channels.md).',
    ),
  telemetry: z
    .union(
      [
        z.literal(true),
        z.strictObject({
          otlpUrl: httpUrl.describe(
            'Where spans are posted as OTLP/HTTP JSON, e.g. `http://collector:4318/v1/traces`.',
          ),
          serviceName: z
            .string()
            .min(1, 'expected a name')
            .optional()
            .describe('`service.name` of the spans (default `heed`).'),
        }),
      ],
      { error: 'expected true or { otlpUrl, serviceName? }' },
    )
    .optional()
    .describe(
      'Traces (docs/operating.md): `{ otlpUrl, serviceName? }` sends spans to an OpenTelemetry collector as OTLP/HTTP JSON; `true` makes them with the tracer provider the application registered with `@opentelemetry/api`. Off unless set. Needs `npm i @opentelemetry/api` (and, for `otlpUrl`, `@opentelemetry/sdk-trace-base @opentelemetry/exporter-trace-otlp-http @opentelemetry/resources`).',
    ),
  logger: withMethods<Logger>(
    'expected a logger with debug, info, warn and error methods (pino(), consoleLogger())',
    'debug',
    'info',
    'warn',
    'error',
  )
    .optional()
    .describe(
      'Where the sweep, the listener, the deliverer and channels report what went wrong: `debug/info/warn/error(fields, message)`, as pino. Default: warnings and errors on stderr.',
    ),
};

const appShape = {
  auth: strict(authShape)
    .optional()
    .describe('Bearer tokens mapped to users, or a function that resolves the caller (docs/http.md#auth).'),
  allowedHosts: allowedHosts
    .optional()
    .describe(
      '`Host` names accepted besides the loopback ones; a leading `.` allows the name and its subdomains; `true` allows any.',
    ),
  cors: strict(corsShape)
    .optional()
    .describe('Pages on other origins allowed to call the API from a browser (CORS); off unless listed.'),
  mcp: strict({
    server: booleanOption.describe('Mount `/mcp`: Heed as an MCP server whose tools ask a person (docs/mcp.md).'),
    progressSeconds: z
      .number({ error: 'expected a number' })
      .min(1, 'expected 1 or more')
      .max(60, 'expected 60 or less')
      .optional()
      .describe('Seconds between progress notifications while a call waits (default 15).'),
    channel: z
      .string({ error: 'expected a string' })
      .min(3, 'expected "<platform>:<place>"')
      .optional()
      .describe(
        'Where in a chat workspace each request the tools make is posted too (`<platform>:<place>` on a configured channel, as `channel` of `POST /api/requests`).',
      ),
  })
    .optional()
    .describe('Heed as an MCP server (docs/mcp.md). Needs `npm i @modelcontextprotocol/sdk`.'),
  metrics: z
    .union([z.boolean(), z.strictObject({ token: z.string().min(16, 'expected a token of 16 characters or more') })], {
      error: 'expected true, false or { token }',
    })
    .default(false)
    .describe(
      "`GET /metrics` in Prometheus' text format (docs/metrics.md): `true` behind the API's sign-in for the operators only (`auth.admins` and `notify.operators`, as for `/api/queue`), `{ token }` for a scraper's own bearer token. Needs `npm i prom-client`.",
    ),
};
const configShape = { ...optionsShape, ...appShape };

/**
 * The schemas the checks use: `channels` is made when a config is checked, so a platform added with
 * `addChatPlatform` (docs/architecture.md) is known to it.
 */
const withChannels = <Shape extends { channels: z.ZodType }>(shape: Shape) =>
  strict({ ...shape, channels: channelsSchema().optional() });
const appOptionsSchema = z.object(appShape);

/** The groups of options with shapes of their own, by their path in the config (the chat platforms' as
 * registered): docs/http.md's tables are made from them. */
export function configGroups(): Record<string, z.ZodRawShape> {
  return {
    '': configShape,
    limits: limitsShape,
    hitl: hitlShape,
    'agents[]': agentShape,
    'agents[].intake': intakeShape,
    notify: notifyShape,
    'notify.retry': retryShape,
    'notify.webhooks[]': webhookShape,
    'notify.email': emailShape,
    'notify.push': pushShape,
    'channels.state': channelStateShape,
    ...Object.fromEntries([...channelConfigShapes].map(([name, { config }]) => [`channels.${name}`, config.shape])),
    cors: corsShape,
    retention: retentionShape,
    'auth.trustedHeader': trustedHeaderShape,
    'auth.trustedHeader.assertion': assertionShape,
  };
}

/** An option's default, when its shape has one. */
export function defaultOf(schema: z.ZodType): unknown {
  return schema instanceof z.ZodDefault ? schema.parse(undefined) : undefined;
}

/**
 * The default of every option that has one, read from the shapes above (their one source). Nested
 * groups are flattened: their names do not collide.
 */
export const defaults = {
  ...strict(limitsShape).parse({}),
  ...strict(hitlShape).parse({}),
  ...strict(retryShape).parse({}),
  linkTtlMinutes: notifyShape.linkTtlMinutes.parse(undefined),
  attemptTimeoutMs: notifyShape.attemptTimeoutMs.parse(undefined),
  pollIntervalMs: notifyShape.pollIntervalMs.parse(undefined),
  callbackHosts: notifyShape.callbackHosts.parse(undefined),
  pendingActionPolicy: optionsShape.pendingActionPolicy.parse(undefined),
  busyPolicy: optionsShape.busyPolicy.parse(undefined),
  sweepIntervalMs: optionsShape.sweepIntervalMs.parse(undefined),
  leaseMs: optionsShape.leaseMs.parse(undefined),
  maxSteps: agentShape.maxSteps.parse(undefined),
  intakeWhen: intakeShape.when.parse(undefined),
};

// The config's types, derived from its shapes (src/config.ts exports them).
type Input<Shape extends z.ZodRawShape> = z.input<ReturnType<typeof strict<Shape>>>;
export type Limits = Input<typeof limitsShape>;
export type HitlConfig = Input<typeof hitlShape>;
export type RetryConfig = Input<typeof retryShape>;
export type WebhookConfig = Input<typeof webhookShape>;
export type EmailConfig = Input<typeof emailShape>;
export type PushConfig = Input<typeof pushShape>;
export type ChannelStateConfig = Input<typeof channelStateShape>;
export type NotifyConfig = Input<typeof notifyShape>;
export type CorsConfig = Input<typeof corsShape>;
export type TrustedHeaderConfig = Input<typeof trustedHeaderShape>;
export type IntakeConfig = Input<typeof intakeShape>;
export type AgentConfig = Input<typeof agentShape>;
export type RetentionConfig = Input<typeof retentionShape>;
export type AuthConfig = Input<typeof authShape>;
export type OidcConfig = Input<typeof oidcShape>;
export type McpServeOptions = NonNullable<Input<typeof appShape>['mcp']>;
/**
 * Chat workspaces where conversations live (docs/channels.md). Each chat platform adds its own entry
 * to this interface from its file (`declare module`), as it adds its shape to the check.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the platforms' files extend it
export interface ChannelsConfig extends Input<typeof channelsShape> {}
export type HeedOptions = Omit<Input<typeof optionsShape>, 'channels'> & { channels?: ChannelsConfig };
export type HeedConfig = Omit<Input<typeof configShape>, 'channels'> & { channels?: ChannelsConfig };
/**
 * A message sent while a turn runs: `reject` (409 `conversation_busy`, the default) or `queue` (recorded,
 * answered 202 with its place, and run once the turn before it ends, in order).
 */
export type BusyPolicy = z.infer<typeof busyPolicy>;
export type AgentNotifyConfig = Input<typeof agentNotifyShape>;
export type AllowedHosts = z.infer<typeof allowedHosts>;

/** The `hitl` options an agent may set for itself. */
export type AgentHitl = NonNullable<AgentConfig['hitl']>;
type HitlSettings = z.output<ReturnType<typeof strict<typeof hitlShape>>>;
const hitlDefaults: HitlSettings = strict(hitlShape).parse({});

/**
 * An agent's `hitl.<key>`: its own, else the server's, else the default. The one rule for every option an
 * agent may set over the server's (docs/http.md#config).
 */
export function hitlSetting<K extends keyof AgentHitl>(
  agent: AgentHitl | undefined,
  server: HitlConfig,
  key: K,
): HitlSettings[K] {
  return (agent?.[key] ?? server[key] ?? hitlDefaults[key]) as HitlSettings[K];
}

/** `agents[0].tools.search`, `auth.tokens["tok-a"]`. */
export function configPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) text += text ? `.${key}` : key;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text || '(the config itself)';
}

const article = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${JSON.stringify(clip(value, 40))}`;
  return article(typeof value);
}

function check(schema: z.ZodType, value: unknown, what: string): void {
  const result = schema.safeParse(value, {
    // Wrong kinds say what came instead; a missing key says it is missing.
    error: (issue) =>
      issue.code === 'invalid_type' ? `expected ${article(issue.expected)}, got ${describe(issue.input)}` : undefined,
  });
  if (result.success) return;
  // An unknown key is reported at its own path (`agent`, not the object holding it), before the rest.
  const issues = result.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: configPath([...issue.path, key]), message: issue.message, first: 0 }))
      : [
          {
            path: configPath(issue.path),
            message:
              issue.code === 'invalid_type' && issue.input === undefined && !issue.message.includes('got')
                ? `${issue.message} (missing)`
                : issue.message,
            first: 1,
          },
        ],
  );
  issues.sort((a, b) => a.first - b.first);
  const shown = issues.slice(0, 10).map(({ path, message }) => ({ path, message }));
  const more = issues.length > shown.length ? ` (and ${issues.length - shown.length} more)` : '';
  throw new HeedError(
    'invalid_config',
    `${what} is not valid: ${shown.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}${more}.`,
    {
      details: { issues: shown },
    },
  );
}

/** Refuses a config file's export (`defineConfig(...)`) that has an unknown key or a value of the wrong shape. */
export function checkConfig(config: unknown, source = 'The config'): asserts config is HeedConfig {
  check(withChannels(configShape), config, source);
}

/** The same for `createHeed(options)`. */
export function checkOptions(options: unknown): asserts options is HeedOptions {
  check(withChannels(optionsShape), options, 'The options of createHeed');
}

/** The parts of `createApp(heed, options)` a person writes by hand: `auth`, `allowedHosts` and `cors`. */
export function checkAppOptions(options: unknown): void {
  check(appOptionsSchema, options, 'The options of createApp');
}
