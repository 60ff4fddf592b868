/**
 * The config checked at start: every key of `defineConfig(...)` and `createHeed(...)`, strictly, so a
 * typo or a value of the wrong shape stops the start with its path instead of being ignored. Functions
 * and objects made by libraries (models, tools, stores, hooks) are checked for their kind only.
 *
 * Adding a key to an interface of config.ts? Add it to its shape here too: the `SameKeys` checks at
 * the bottom fail to compile until both agree.
 */
import { approvalPolicyProblems } from './kinds/approval-policy.js';
import { clip } from './kinds/clip.js';
import { z } from 'zod';
import type {
  AgentConfig,
  AuthConfig,
  ChannelsConfig,
  CorsConfig,
  EmailConfig,
  HeedConfig,
  HeedOptions,
  HitlConfig,
  IntakeConfig,
  Limits,
  NotifyConfig,
  RetryConfig,
  SlackChannelConfig,
  WebhookConfig,
} from './config.js';
import { HeedError } from './errors.js';

/** An object that refuses keys it does not know, naming the ones it does. */
function strict<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown key (expected one of: ${known})` : undefined) });
}

const fn = (what: string) => z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { error: `expected ${what} (a function)` });
const hasMethods = (value: unknown, ...methods: string[]) =>
  typeof value === 'object' && value !== null && methods.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

const wholeCount = (minimum: number) => z.number({ error: 'expected a number' }).int('expected a whole number').min(minimum, `expected at least ${minimum}`);
const duration = z.number({ error: 'expected a number' }).min(0, 'expected 0 or more');

const limitsShape = {
  maxStateBytes: wholeCount(1).optional(),
  clientToolOutputBytes: wholeCount(1).optional(),
  maxTokensPerConversation: wholeCount(1).optional(),
  maxMetadataBytes: wholeCount(0).optional(),
  maxMessagesPerConversation: wholeCount(1).optional(),
  conversationsPerMinute: wholeCount(0).optional(),
  maxQueuedMessages: wholeCount(1).optional(),
  streamsPerCaller: wholeCount(1).optional(),
  streamQueueBytes: wholeCount(1024).optional(),
};

const hitlShape = {
  timeoutMinutes: duration.optional(),
  onTimeout: z.enum(['deny', 'cancel'], { error: 'expected "deny" or "cancel"' }).optional(),
  resolveWaitMs: duration.optional(),
  authorizeResolve: fn('authorizeResolve(caller, target)').optional(),
  validateApprovedArgs: z.boolean({ error: 'expected true or false' }).optional(),
  allowRememberApproval: z.boolean({ error: 'expected true or false' }).optional(),
};

const intakeShape = {
  when: z.enum(['thread-start', 'every-turn'], { error: 'expected "thread-start" or "every-turn"' }).optional(),
  preamble: z.string({ error: 'expected a string' }).optional(),
  // Each question is checked in full when the agent is set up (with the rules of asked questions).
  questions: z.array(z.record(z.string(), z.unknown(), { error: 'expected a question { id, prompt, ... }' }), {
    error: 'expected a list of questions',
  }),
  timeoutMinutes: duration.optional(),
};

const needsApproval = z.union([z.boolean(), z.record(z.string(), z.boolean())], { error: 'expected true/false, or true/false by tool name' });
const mcpCommon = {
  needsApproval: needsApproval.optional(),
  beforeInputRequest: fn('beforeInputRequest(request)').optional(),
  timeoutSeconds: z.number({ error: 'expected a number' }).positive('expected more than 0').optional(),
  maxConnections: wholeCount(1).optional(),
  sampling: z.enum(['ask', 'remember', 'never'], { error: "expected 'ask', 'remember' or 'never'" }).optional(),
  roots: z
    .array(strict({ uri: z.string().startsWith('file://', 'expected a file:// URI'), name: z.string().optional() }), { error: 'expected a list of { uri, name? }' })
    .optional(),
};
const stringRecord = z.record(z.string(), z.string({ error: 'expected a string' }), { error: 'expected an object of strings' });
const mcpServer = z.union(
  [
    strict({ ...mcpCommon, command: z.string().min(1), args: z.array(z.string()).optional(), env: stringRecord.optional(), cwd: z.string().optional() }),
    strict({ ...mcpCommon, url: z.string().min(1), headers: stringRecord.optional() }),
  ],
  {
    error:
      'expected { command, args?, env?, cwd? } (stdio) or { url, headers? } (HTTP), with optional needsApproval, beforeInputRequest, timeoutSeconds, maxConnections, sampling, roots',
  },
);

const httpUrl = z.string({ error: 'expected a URL' }).refine((value) => /^https?:\/\/[^\s]+$/i.test(value) && URL.canParse(value), 'expected an http:// or https:// URL');
const webhookShape = {
  url: httpUrl,
  secret: z.string({ error: 'expected a string' }).startsWith('whsec_', 'expected a Standard Webhooks secret (whsec_ followed by base64)'),
  events: z
    .array(
      z.enum(['action.required', 'action.resolved', 'action.expired', 'action.cancelled'], {
        error: 'expected action.required, action.resolved, action.expired or action.cancelled',
      }),
    )
    .optional(),
  agents: z.array(z.string({ error: 'expected an agent name' })).optional(),
};
const emailShape = {
  transport: z.union([z.string().min(1), z.record(z.string(), z.unknown())], { error: 'expected an smtp:// URL or nodemailer SMTP options' }),
  from: z.string({ error: 'expected a string' }).min(3, 'expected a sender address'),
  to: fn('to({ action, conversation })'),
};
const retryShape = { firstDelayMs: duration.optional(), maxDelayMs: duration.optional(), giveUpAfterMs: duration.optional() };
const notifyShape = {
  publicUrl: httpUrl.optional(),
  webhooks: z.array(strict(webhookShape), { error: 'expected a list of webhooks' }).optional(),
  email: strict(emailShape).optional(),
  linkSecret: z.string({ error: 'expected a string' }).min(32, 'expected at least 32 characters').optional(),
  linkTtlMinutes: z.number({ error: 'expected a number' }).positive('expected more than 0').optional(),
  operators: z.array(z.string({ error: 'expected a user id' }).min(1)).optional(),
  retry: strict(retryShape).optional(),
  attemptTimeoutMs: z.number({ error: 'expected a number' }).positive('expected more than 0').optional(),
  pollIntervalMs: z.number({ error: 'expected a number' }).positive('expected more than 0').optional(),
};
const slackShape = {
  botToken: z.string({ error: 'expected a string' }).min(1, 'expected the bot token (xoxb-…)'),
  signingSecret: z.string({ error: 'expected a string' }).min(1, "expected the app's signing secret"),
  agent: z.string({ error: 'expected an agent name' }).min(1, 'expected an agent name'),
  apiUrl: httpUrl.optional(),
  access: fn('access(slackUserId, { conversation, action })').optional(),
};
const channelsShape = { slack: strict(slackShape).optional() };
const agentNotifyShape = { webhooks: notifyShape.webhooks, email: notifyShape.email };

const toolsSchema = z
  .record(
    z.string(),
    z.custom((value) => typeof value === 'object' && value !== null, { error: 'expected a tool made with tool({ ... })' }),
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
        context.addIssue({ code: 'custom', path: [name, ...field.split('.')], message: rest.join(': ').replace(/\.$/, '') });
      }
    }
  });

const agentShape = {
  name: z.string({ error: 'expected a string' }).min(1, 'expected a name'),
  description: z.string({ error: 'expected a string' }).optional(),
  model: z.custom((value) => hasMethods(value, 'doStream'), { error: 'expected an AI SDK language model' }),
  instructions: z.string({ error: 'expected a string' }).optional(),
  tools: toolsSchema.optional(),
  intake: strict(intakeShape).optional(),
  ask: z.boolean({ error: 'expected true or false' }).optional(),
  hitl: strict({
    timeoutMinutes: hitlShape.timeoutMinutes,
    onTimeout: hitlShape.onTimeout,
    validateApprovedArgs: hitlShape.validateApprovedArgs,
    allowRememberApproval: hitlShape.allowRememberApproval,
  }).optional(),
  maxSteps: wholeCount(1).optional(),
  mcpServers: z.record(z.string(), mcpServer, { error: 'expected an object of MCP servers by name' }).optional(),
  beforeInputRequest: fn('beforeInputRequest(request)').optional(),
  notify: strict(agentNotifyShape).optional(),
  busyPolicy: z.enum(['reject', 'queue'], { error: 'expected "reject" or "queue"' }).optional(),
};

const userShape = {
  userId: z.string({ error: 'expected a string' }).min(1, 'expected a user id'),
  data: z.record(z.string(), z.unknown(), { error: 'expected an object' }).optional(),
};

const authShape = {
  tokens: z
    .record(z.string().min(1, 'a token may not be empty'), z.union([z.string().min(1), strict(userShape)], { error: 'expected { userId } (or the user id alone as a string)' }), {
      error: 'expected an object of users by token',
    })
    .optional(),
  resolveContext: fn('resolveContext(request)').optional(),
  required: z.boolean({ error: 'expected true or false' }).optional(),
};

const allowedHosts = z.union([z.literal(true), z.array(z.string({ error: 'expected a host name' }).min(1, 'expected a host name'))], {
  error: 'expected a list of host names, or true to allow any',
});

const corsShape = {
  origins: z.array(
    z
      .string({ error: 'expected an origin' })
      .regex(/^https?:\/\/[^/\s?#*]+$/, 'expected an origin: a scheme and a host, with the port if any, and nothing after (https://app.example.com)'),
    { error: 'expected a list of origins' },
  ),
};

const optionsShape = {
  agents: z.array(strict(agentShape), { error: 'expected a list of agents' }),
  tools: toolsSchema.optional(),
  ask: agentShape.ask,
  store: z.custom((value) => hasMethods(value, 'migrate', 'commit'), { error: 'expected a store (memoryStore(), sqliteStore(...), postgresStore(...))' }).optional(),
  hitl: strict(hitlShape).optional(),
  limits: strict(limitsShape).optional(),
  pendingActionPolicy: z.enum(['reject', 'cancel'], { error: 'expected "reject" or "cancel"' }).optional(),
  busyPolicy: agentShape.busyPolicy,
  sweepIntervalMs: duration.optional(),
  leaseMs: z.number({ error: 'expected a number' }).positive('expected more than 0').optional(),
  now: fn('now()').optional(),
  notify: strict(notifyShape).optional(),
  channels: strict(channelsShape).optional(),
  logger: z
    .custom((value) => hasMethods(value, 'debug', 'info', 'warn', 'error'), { error: 'expected a logger with debug, info, warn and error methods (pino(), consoleLogger())' })
    .optional(),
};

const configShape = { ...optionsShape, auth: strict(authShape).optional(), allowedHosts: allowedHosts.optional(), cors: strict(corsShape).optional() };

const optionsSchema = strict(optionsShape);
const configSchema = strict(configShape);
const appOptionsSchema = z.object({ auth: strict(authShape).optional(), allowedHosts: allowedHosts.optional(), cors: strict(corsShape).optional() });

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
    error: (issue) => (issue.code === 'invalid_type' ? `expected ${article(issue.expected)}, got ${describe(issue.input)}` : undefined),
  });
  if (result.success) return;
  // An unknown key is reported at its own path (`agent`, not the object holding it), before the rest.
  const issues = result.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: configPath([...issue.path, key]), message: issue.message, first: 0 }))
      : [
          {
            path: configPath(issue.path),
            message: issue.code === 'invalid_type' && issue.input === undefined && !issue.message.includes('got') ? `${issue.message} (missing)` : issue.message,
            first: 1,
          },
        ],
  );
  issues.sort((a, b) => a.first - b.first);
  const shown = issues.slice(0, 10).map(({ path, message }) => ({ path, message }));
  const more = issues.length > shown.length ? ` (and ${issues.length - shown.length} more)` : '';
  throw new HeedError('invalid_config', `${what} is not valid: ${shown.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}${more}.`, {
    details: { issues: shown },
  });
}

/** Refuses a config file's export (`defineConfig(...)`) that has an unknown key or a value of the wrong shape. */
export function checkConfig(config: unknown, source = 'The config'): asserts config is HeedConfig {
  check(configSchema, config, source);
}

/** The same for `createHeed(options)`. */
export function checkOptions(options: unknown): asserts options is HeedOptions {
  check(optionsSchema, options, 'The options of createHeed');
}

/** The parts of `createApp(heed, options)` a person writes by hand: `auth`, `allowedHosts` and `cors`. */
export function checkAppOptions(options: unknown): void {
  check(appOptionsSchema, options, 'The options of createApp');
}

// Each shape has exactly the keys of its interface: a key added to one and not the other fails to compile.
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
export const shapesMatch: [
  SameKeys<Limits, typeof limitsShape>,
  SameKeys<HitlConfig, typeof hitlShape>,
  SameKeys<IntakeConfig, typeof intakeShape>,
  SameKeys<AgentConfig, typeof agentShape>,
  SameKeys<AuthConfig, typeof authShape>,
  SameKeys<CorsConfig, typeof corsShape>,
  SameKeys<HeedOptions, typeof optionsShape>,
  SameKeys<HeedConfig, typeof configShape>,
  SameKeys<NotifyConfig, typeof notifyShape>,
  SameKeys<WebhookConfig, typeof webhookShape>,
  SameKeys<EmailConfig, typeof emailShape>,
  SameKeys<RetryConfig, typeof retryShape>,
  SameKeys<ChannelsConfig, typeof channelsShape>,
  SameKeys<SlackChannelConfig, typeof slackShape>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true];
