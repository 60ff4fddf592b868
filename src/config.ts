import type { Logger } from './logger.js';
import type { TelemetryConfig } from './telemetry/tracing.js';
import type { AgentModel } from './engine/turn/model-spec.js';
import type { AgentHandler, RemoteAgentConfig } from './agents/handler-types.js';
import type { Caller } from './caller.js';
import type { BeforeInputRequest, McpServerConfig } from './mcp/types.js';
import type { Store } from './store/store.js';
import type { HeedTool } from './tool.js';
import type { AskedQuestion } from './types.js';
import type { AgentInfo } from './protocol/responses.js';
import type {
  CorsConfig,
  HitlConfig,
  TrustedHeaderConfig,
  Limits,
  NotifyConfig,
  SlackChannelConfig,
  TelegramChannelConfig,
  GithubChannelConfig,
  LinearChannelConfig,
  DiscordChannelConfig,
  ChannelStateConfig,
  TeamsChannelConfig,
  GchatChannelConfig,
} from './config-schema.js';

// The options that are plain data have their type derived from their zod shape, beside their default and
// doc line (config-schema.ts); the rest hold functions and objects of libraries, typed here by hand.
export type {
  CorsConfig,
  EmailConfig,
  PushConfig,
  HitlConfig,
  Limits,
  NotifyConfig,
  RetryConfig,
  SlackChannelConfig,
  TelegramChannelConfig,
  GithubChannelConfig,
  LinearChannelConfig,
  DiscordChannelConfig,
  ChannelStateConfig,
  TeamsChannelConfig,
  GchatChannelConfig,
  ChannelUser,
  WebhookConfig,
} from './config-schema.js';

export interface IntakeConfig {
  /** `thread-start` (the default) asks once per conversation; `every-turn` before each turn. */
  when?: 'thread-start' | 'every-turn';
  preamble?: string;
  questions: AskedQuestion[];
  /** Intake questions never lapse unless this is set. */
  timeoutMinutes?: number;
}

export interface AgentConfig {
  name: string;
  description?: string;
  /**
   * Agents this one may call: each named agent is offered to the model as a tool `agent_<name>({ task })`
   * whose call runs that agent in a child conversation (docs/concepts.md, Agents that call agents).
   */
  agents?: string[];
  /**
   * An AI SDK 7 (specification v4) or AI SDK 6 (v3) language model, e.g. `openai('gpt-4o-mini')`: the agent
   * runs on Heed's own loop. Exactly one of `model`, `handler` and `remote`.
   */
  model?: AgentModel;
  /** Your own code as the agent: `processMessage` per user message, `resolveAction` per settled action. */
  handler?: AgentHandler;
  /** An agent in another service: the handler's two calls as signed HTTP POSTs. */
  remote?: RemoteAgentConfig;
  /**
   * What a `handler` or `remote` agent can ask, as `GET /api/agents/:name` reports it (Heed cannot see into
   * such an agent); an agent on Heed's own loop has them worked out from its tools. Unset ones are false.
   */
  capabilities?: Partial<AgentInfo['capabilities']>;
  instructions?: string;
  tools?: Record<string, HeedTool>;
  intake?: IntakeConfig;
  /** Offer the model the built-in `ask` tool. */
  ask?: boolean;
  hitl?: Omit<HitlConfig, 'authorizeResolve' | 'resolveWaitMs'>;
  /** Model calls per turn before it stops (defaults: docs/http.md#config). */
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

export type AgentNotifyConfig = Pick<NotifyConfig, 'webhooks' | 'email'>;

/** Chat workspaces where conversations live (docs/channels.md). */
export interface ChannelsConfig {
  slack?: SlackChannelConfig;
  telegram?: TelegramChannelConfig;
  github?: GithubChannelConfig;
  linear?: LinearChannelConfig;
  discord?: DiscordChannelConfig;
  /** Where Chat SDK's state is kept: Heed's own store, unless `redis` names a server. */
  state?: ChannelStateConfig;
  teams?: TeamsChannelConfig;
  gchat?: GchatChannelConfig;
}

/** Retention (docs/operating.md#retention). */
export interface RetentionConfig {
  /** Days after its last change that a finished conversation (nothing pending, running or queued) is deleted. */
  finishedDays: number;
  /** Days audit entries are kept; absent: forever. */
  auditDays?: number;
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
  /** A message sent while a pause is open: `reject` (409 `action_pending`) or `cancel` the pause. */
  pendingActionPolicy?: 'reject' | 'cancel';
  /** A message sent while a turn runs: `reject` or `queue`; an agent's own `busyPolicy` wins. */
  busyPolicy?: BusyPolicy;
  /** How often the lapse sweep runs, in ms; 0 turns the timer off (call `expireDue()` yourself). */
  sweepIntervalMs?: number;
  /** How long the sweep keeps finished conversations and audit entries (docs/operating.md); without it nothing is deleted. */
  retention?: RetentionConfig;
  /** How long a running turn's claim lasts before another instance may take it over. */
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
  /**
   * Traces (docs/operating.md): `{ otlpUrl, serviceName? }` sends spans to an OpenTelemetry collector
   * as OTLP/HTTP JSON; `true` uses the tracer provider the application registered with `@opentelemetry/api`.
   * Off unless set: nothing of OpenTelemetry is loaded then.
   */
  telemetry?: TelemetryConfig;
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
  /**
   * `GET /metrics` in Prometheus' text format: `true` behind the API's sign-in for the operators only
   * (`notify.operators`, as for `/api/queue`), `{ token }` for a scraper's
   * own bearer token (docs/metrics.md). Needs `npm i prom-client`.
   */
  metrics?: boolean | { token: string };
  /** Heed as an MCP server: `/mcp`, whose tools ask a person (docs/mcp.md). */
  mcp?: McpServeOptions;
}

/** `mcp` in the config: Heed as an MCP server (docs/mcp.md). */
export interface McpServeOptions {
  server: boolean;
  /** Seconds between progress notifications while a call waits (default 15). */
  progressSeconds?: number;
  /** Where in a chat workspace each request the tools make is posted too (`<platform>:<place>`). */
  channel?: string;
}

export type AllowedHosts = string[] | true;

export interface AuthConfig {
  /** Bearer tokens mapped to users: `{ userId, groups?, data? }`, or the user id alone (`{ 'tok-a': 'alice' }`). */
  tokens?: Record<string, string | { userId: string; groups?: string[]; data?: Record<string, unknown> }>;
  /** Resolves the caller from a request; wins over `tokens`. Return null for anonymous. */
  resolveContext?: (request: Request) => Caller | null | Promise<Caller | null>;
  /** Refuse anonymous callers with 401. */
  required?: boolean;
  /** User ids and `group:<name>` entries who may use the operator routes, beside `notify.operators`. */
  admins?: string[];
  /** The user (and groups) from headers an authenticating proxy sets, trusted by its address or its signed JWT. */
  trustedHeader?: TrustedHeaderConfig;
  /** Sign-in with the organization's OpenID Connect provider, for the console and the answer page (docs/auth.md). */
  oidc?: OidcConfig;
  /** A signed-in session ends after this many hours without use (default 12). */
  sessionHours?: number;
}

/**
 * An OpenID Connect provider people sign in with (Okta, Entra ID, Google Workspace, Keycloak…).
 *
 * @example
 * { issuer: 'https://login.example.com', clientId: 'heed', clientSecret: process.env.OIDC_SECRET, name: 'Example SSO', userClaim: 'email' }
 */
export interface OidcConfig {
  /** The issuer URL; its discovery document is read from `/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  /** Left out for a public client (PKCE alone). */
  clientSecret?: string;
  /** Shown on the button: "Sign in with <name>". */
  name?: string;
  /** Default `openid email profile`. */
  scopes?: string[];
  /** The claim that is the user id (default `sub`; `email` is common). */
  userClaim?: string;
  /** The claim that lists the person's groups (default `groups`). */
  groupsClaim?: string;
  /** Only people whose verified email is at one of these domains may sign in. */
  allowedDomains?: string[];
  /** Heed's own address as the browser reaches it; the callback is `<publicUrl>/auth/callback`. */
  publicUrl?: string;
}

/**
 * Identity helper that types a config file's default export.
 *
 * @example
 * ```ts
 * // heed.config.ts, run with `heed serve --config heed.config.ts`
 * export default defineConfig({ agents: [{ name: 'support', model: openai('gpt-4.1-mini') }], auth: { tokens: { 'tok-a': 'alice' } } });
 * ```
 */
export function defineConfig(config: HeedConfig): HeedConfig {
  return config;
}
