/*
 * The config's types. Each is derived from its shape in src/config-schema.ts (or, for a chat platform
 * or an MCP server, in that integration's own file), beside its doc line, its default and its check:
 * there is no second, hand-written copy to keep in step.
 */
import type { HeedConfig } from './config-schema.js';

export type {
  AgentConfig,
  AgentNotifyConfig,
  AllowedHosts,
  AuthConfig,
  BusyPolicy,
  ChannelsConfig,
  ChannelStateConfig,
  ChannelUser,
  CorsConfig,
  EmailConfig,
  HeedConfig,
  HeedOptions,
  HitlConfig,
  IntakeConfig,
  Limits,
  McpServeOptions,
  NotifyConfig,
  OidcConfig,
  PushConfig,
  RetentionConfig,
  RetryConfig,
  TrustedHeaderConfig,
  WebhookConfig,
} from './config-schema.js';

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
