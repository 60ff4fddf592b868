import type { Logger } from './logger.js';
import type { AgentModel } from './engine/turn/model-spec.js';
import type { Caller } from './caller.js';
import type { BeforeInputRequest, McpServerConfig } from './mcp/types.js';
import type { Store } from './store/store.js';
import type { HeedTool } from './tool.js';
import type { DeliveryEvent } from './store/store.js';
import type { ActionRecord, AskedQuestion, ConversationRecord, TimeoutPolicy } from './types.js';
import type { ActionView } from './views.js';

export interface HitlConfig {
  /** Minutes before an action lapses; fractions allowed; 0 = never. Default 1440 (a day). */
  timeoutMinutes?: number;
  /** What a lapse does, frozen at pause time: `deny` (default) answers for the person, `cancel` ends the turn. */
  onTimeout?: TimeoutPolicy;
  /** How long an answer that meets another being recorded retries before giving up. Default 3000. */
  resolveWaitMs?: number;
  /** When set, decides for everyone (the owner too) who may answer; false means 403 `action_forbidden`. */
  authorizeResolve?: (caller: Caller | null, target: { conversation: ConversationRecord; action: ActionRecord }) => boolean | Promise<boolean>;
  /**
   * Check edited arguments (`approvedArgs`) against the tool's schema: 400 `invalid_approved_args` naming the field.
   * Default true; false takes them as sent, and a tool whose schema refuses them fails with an error the model reads.
   */
  validateApprovedArgs?: boolean;
  /** Let an approval be remembered for later calls of its tool (`remember: true`). Default true; false also stops earlier ones from applying. */
  allowRememberApproval?: boolean;
}

export interface IntakeConfig {
  /** `thread-start` (default) asks once per conversation; `every-turn` before each turn. */
  when?: 'thread-start' | 'every-turn';
  preamble?: string;
  questions: AskedQuestion[];
  /** Intake questions never lapse unless this is set. */
  timeoutMinutes?: number;
}

export interface AgentConfig {
  name: string;
  description?: string;
  /** An AI SDK 7 (specification v4) or AI SDK 6 (v3) language model, e.g. `openai('gpt-4o-mini')`. */
  model: AgentModel;
  instructions?: string;
  tools?: Record<string, HeedTool>;
  intake?: IntakeConfig;
  /** Offer the model the built-in `ask` tool. */
  ask?: boolean;
  hitl?: Omit<HitlConfig, 'authorizeResolve' | 'resolveWaitMs'>;
  /** Model calls per turn before it stops. Default 20. */
  maxSteps?: number;
  /** MCP servers by name, connected when Heed starts; their tools are offered as `<server>_<tool>`. */
  mcpServers?: Record<string, McpServerConfig>;
  /** Runs before a person is asked what an MCP server requests: may answer it, refuse it, or leave it to the person. */
  beforeInputRequest?: BeforeInputRequest;
  /** This agent's own webhooks and email, each replacing the server's `notify` key of the same name. */
  notify?: AgentNotifyConfig;
  /** A message sent while a turn runs in one of its conversations; wins over the server's `busyPolicy`. */
  busyPolicy?: BusyPolicy;
}

/**
 * A message sent while a turn runs: `reject` (409 `conversation_busy`, the default) or `queue` (recorded,
 * answered 202 with its place, and run once the turn before it ends, in order).
 */
export type BusyPolicy = 'reject' | 'queue';

/** A webhook: signed per Standard Webhooks with `secret` (`whsec_…`). */
export interface WebhookConfig {
  url: string;
  secret: string;
  /** Only these event types (default: all four). */
  events?: DeliveryEvent[];
  /** Only actions of these agents (default: every agent). */
  agents?: string[];
}

/** Who is mailed about an action that waits, and how. */
export interface EmailConfig {
  /** A nodemailer transport: an `smtp://` / `smtps://` URL, or nodemailer's SMTP options. */
  transport: string | Record<string, unknown>;
  /** The sender, e.g. `Heed <heed@example.com>`. */
  from: string;
  /** The recipients of an action that waits: addresses, or null for none. */
  to: (target: { action: ActionView; conversation: { id: string; agent: string; ownerId: string | null } }) => string | string[] | null | undefined;
}

export interface RetryConfig {
  /** Wait before the second attempt; each further wait doubles. Default 5,000. */
  firstDelayMs?: number;
  /** Longest wait between attempts. Default 3,600,000 (an hour). */
  maxDelayMs?: number;
  /** A delivery not sent this long after it was written fails for good. Default 86,400,000 (a day). */
  giveUpAfterMs?: number;
}

export interface NotifyConfig {
  /** Base of every answer link, e.g. `https://heed.example.com`. Without it, notifications carry no links. */
  publicUrl?: string;
  webhooks?: WebhookConfig[];
  email?: EmailConfig;
  /** Signs answer links (at least 32 characters). Default: a random secret made once and kept in the store. */
  linkSecret?: string;
  /** How long an answer link lasts when its action never lapses (never longer than the action). Default 10,080 (a week). */
  linkTtlMinutes?: number;
  /** User ids that may list deliveries (`GET /api/deliveries`). Nobody else may, anonymous callers never. */
  operators?: string[];
  retry?: RetryConfig;
  /** How long one attempt may take before it counts as failed; a claim lasts twice this. Default 30,000. */
  attemptTimeoutMs?: number;
  /** How often the deliverer looks for due deliveries (besides right after each commit). Default 1,000. */
  pollIntervalMs?: number;
}

export type AgentNotifyConfig = Pick<NotifyConfig, 'webhooks' | 'email'>;

/** A Slack workspace where one agent talks in threads (docs/channels.md). */
export interface SlackChannelConfig {
  /** The bot's token (`xoxb-…`), for posting and updating messages. */
  botToken: string;
  /** The app's signing secret: every request to `POST /api/channels/slack/events` must be signed with it. */
  signingSecret: string;
  /** The agent that answers in Slack. */
  agent: string;
  /** The Web API base. Default `https://slack.com/api/` (tests point it at a local server). */
  apiUrl?: string;
  /** Who may answer a request posted in a thread, by Slack user id. Default: anyone in the thread. */
  access?: (slackUserId: string, target: { conversation: ConversationRecord; action: ActionRecord }) => boolean | Promise<boolean>;
}

/** Chat workspaces where conversations live (docs/channels.md). */
export interface ChannelsConfig {
  slack?: SlackChannelConfig;
}

export interface Limits {
  /** A paused state bigger than this is not paused (warning `pause_state_too_large`). Default 1 MiB. */
  maxStateBytes?: number;
  /** Largest client tool output accepted, in bytes of JSON. Default 65,536. */
  clientToolOutputBytes?: number;
  /** Tokens a conversation may spend; past it, messages and answers get 402 `budget_reached`. */
  maxTokensPerConversation?: number;
  /** Largest conversation `metadata`, in bytes of JSON; larger gets 413 `metadata_too_large`. Default 16,384. */
  maxMetadataBytes?: number;
  /** Stored messages (every role) a conversation may hold; past it, a new message gets 400 `message_limit_reached`. Default 5,000. */
  maxMessagesPerConversation?: number;
  /**
   * Conversations one caller may start per minute over HTTP (by user id; by client address when anonymous),
   * counted by each server process on its own; past it 429 `rate_limited` with `Retry-After`. 0 = no limit. Default 30.
   */
  conversationsPerMinute?: number;
  /** Messages that may wait in one conversation for its running turn (`busyPolicy: 'queue'`); past it 409 `queue_full`. Default 10. */
  maxQueuedMessages?: number;
  /** Live streams (SSE) one caller may hold open at once; past it 429 `rate_limited`. Default 16. */
  streamsPerCaller?: number;
  /** Bytes one stream may have sent and its client not yet read; past it the stream is dropped (resume with `Last-Event-ID`). Default 1 MiB. */
  streamQueueBytes?: number;
}

export interface HeedOptions {
  agents: AgentConfig[];
  /**
   * Tools offered to every agent, beside its own. An agent's own tool of the same name (or an MCP
   * server's tool) wins: the agent sees that one only.
   */
  tools?: Record<string, HeedTool>;
  /** Offer every agent the built-in `ask` tool. An agent's own `ask` (true or false) wins. */
  ask?: boolean;
  /** Default: an in-memory store (a pause does not survive a restart). */
  store?: Store;
  hitl?: HitlConfig;
  limits?: Limits;
  /** A message sent while a pause is open: `reject` (409 `action_pending`, default) or `cancel` the pause. */
  pendingActionPolicy?: 'reject' | 'cancel';
  /** A message sent while a turn runs: `reject` (default) or `queue`; an agent's own `busyPolicy` wins. */
  busyPolicy?: BusyPolicy;
  /** How often the lapse sweep runs, in ms; 0 turns the timer off (call `expireDue()` yourself). Default 60,000. */
  sweepIntervalMs?: number;
  /** How long a running turn's claim lasts before another instance may take it over. Default 30,000. */
  leaseMs?: number;
  /** The clock (tests move it). */
  now?: () => Date;
  /** Webhooks, email and answer links (docs/notifications.md). */
  notify?: NotifyConfig;
  /** Chat workspaces where conversations live, starting with Slack (docs/channels.md). */
  channels?: ChannelsConfig;
  /**
   * Where the sweep, the listener, the deliverer and channels report what fails in the background
   * (pino's or a console's shape: `warn(fields, message)`). Default: `consoleLogger()`, warnings and errors on stderr.
   */
  logger?: Logger;
}

export interface HeedConfig extends Omit<HeedOptions, 'store'> {
  store?: Store;
  auth?: AuthConfig;
  /**
   * `Host` names accepted besides the loopback ones (`localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`),
   * as Vite's dev server takes them: a leading `.` allows the name and its subdomains; `true` allows any.
   */
  allowedHosts?: AllowedHosts;
  /** Pages on other origins allowed to call the API from a browser (CORS); off unless listed. */
  cors?: CorsConfig;
}

export type AllowedHosts = string[] | true;

export interface CorsConfig {
  /**
   * Exact origins (`https://app.example.com`, `http://localhost:5173`) whose pages may call the API,
   * the AI SDK chat endpoint and the streams, sending `Authorization` and JSON bodies.
   */
  origins: string[];
}

export interface AuthConfig {
  /** Bearer tokens mapped to users: `{ userId, data? }`, or the user id alone (`{ 'tok-a': 'alice' }`). */
  tokens?: Record<string, string | { userId: string; data?: Record<string, unknown> }>;
  /** Resolves the caller from a request; wins over `tokens`. Return null for anonymous. */
  resolveContext?: (request: Request) => Caller | null | Promise<Caller | null>;
  /** Refuse anonymous callers with 401. */
  required?: boolean;
}

/** Identity helper that types a config file's default export. */
export function defineConfig(config: HeedConfig): HeedConfig {
  return config;
}
