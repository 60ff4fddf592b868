import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Caller } from './caller.js';
import type { BeforeInputRequest, McpServerConfig } from './mcp/types.js';
import type { Store } from './store/store.js';
import type { HeedTool } from './tool.js';
import type { ActionRecord, ConversationRecord, Question, TimeoutPolicy } from './types.js';

export interface HitlConfig {
  /** Minutes before an action lapses; fractions allowed; 0 = never. Default 1440 (a day). */
  timeoutMinutes?: number;
  /** What a lapse does, frozen at pause time: `deny` (default) answers for the person, `cancel` ends the turn. */
  onTimeout?: TimeoutPolicy;
  /** How long an answer that meets another being recorded retries before giving up. Default 3000. */
  resolveWaitMs?: number;
  /** When set, decides for everyone (the owner too) who may answer; false means 403 `action_forbidden`. */
  authorizeResolve?: (caller: Caller | null, target: { conversation: ConversationRecord; action: ActionRecord }) => boolean | Promise<boolean>;
}

export interface IntakeConfig {
  /** `thread-start` (default) asks once per conversation; `every-turn` before each turn. */
  when?: 'thread-start' | 'every-turn';
  preamble?: string;
  questions: Array<Partial<Question> & { header: string; prompt: string }>;
  /** Intake questions never lapse unless this is set. */
  timeoutMinutes?: number;
}

export interface AgentConfig {
  name: string;
  description?: string;
  model: LanguageModelV3;
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
}

export interface Limits {
  /** A paused state bigger than this is not paused (warning `pause_state_too_large`). Default 1 MiB. */
  maxStateBytes?: number;
  /** Largest client tool output accepted, in bytes of JSON. Default 65,536. */
  clientToolOutputBytes?: number;
  /** Tokens a conversation may spend; past it, messages and answers get 402 `budget_reached`. */
  maxTokensPerConversation?: number;
}

export interface HeedOptions {
  agents: AgentConfig[];
  /** Default: an in-memory store (a pause does not survive a restart). */
  store?: Store;
  hitl?: HitlConfig;
  limits?: Limits;
  /** A message sent while a pause is open: `reject` (409 `action_pending`, default) or `cancel` the pause. */
  pendingActionPolicy?: 'reject' | 'cancel';
  /** How often the lapse sweep runs, in ms; 0 turns the timer off (call `expireDue()` yourself). Default 60,000. */
  sweepIntervalMs?: number;
  /** How long a running turn's claim lasts before another instance may take it over. Default 30,000. */
  leaseMs?: number;
  /** The clock (tests move it). */
  now?: () => Date;
}

export interface HeedConfig extends Omit<HeedOptions, 'store'> {
  store?: Store;
  auth?: AuthConfig;
}

export interface AuthConfig {
  /** Bearer tokens mapped to users. */
  tokens?: Record<string, { userId: string; data?: Record<string, unknown> }>;
  /** Resolves the caller from a request; wins over `tokens`. Return null for anonymous. */
  resolveContext?: (request: Request) => Caller | null | Promise<Caller | null>;
  /** Refuse anonymous callers with 401. */
  required?: boolean;
}

/** Identity helper that types a config file's default export. */
export function defineConfig(config: HeedConfig): HeedConfig {
  return config;
}
