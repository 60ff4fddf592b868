export { createHeed } from './heed.js';
export type {
  Heed,
  ConversationHandle,
  ConversationSnapshot,
  PendingAction,
  QuestionValue,
  AgentInfo,
} from './heed.js';
export type { CreateRequestInput, ExternalRequest, HeedRequests } from './heed-requests.js';
export { defineConfig } from './config.js';
// Each platform's entry of `channels` (its file also adds it to ChannelsConfig).
export type { TelegramChannelConfig } from './channels/chat-sdk/platforms/telegram.js';
export type { GithubChannelConfig } from './channels/chat-sdk/platforms/github.js';
export type { LinearChannelConfig } from './channels/chat-sdk/platforms/linear.js';
export type { DiscordChannelConfig } from './channels/chat-sdk/platforms/discord.js';
export type { TeamsChannelConfig } from './channels/chat-sdk/platforms/teams.js';
export type { GchatChannelConfig } from './channels/chat-sdk/platforms/gchat.js';
export type { AgentModel } from './engine/turn/model-spec.js';
export type {
  AgentConfig,
  BusyPolicy,
  HeedConfig,
  HeedOptions,
  HitlConfig,
  IntakeConfig,
  Limits,
  AuthConfig,
} from './config.js';
export type { AgentNotifyConfig, EmailConfig, NotifyConfig, RetryConfig, WebhookConfig } from './config.js';
export type {
  AgentHandler,
  HandlerActionRequest,
  HandlerReply,
  ProcessMessageInput,
  RemoteAgentConfig,
  RemoteCallBody,
  ResolveActionInput,
} from './agents/handler-types.js';
export type { WebhookBody } from './notify/webhook.js';
export type { ActionLinks } from './notify/links.js';
export { tool, jsonSchemaInput } from './tool.js';
export type { McpServerConfig, McpStdioServer, McpHttpServer, SamplingPolicy, McpRoot } from './mcp/config.js';
export type {
  BeforeInputRequest,
  InputRequest,
  InputReply,
  ElicitationFormSchema,
  ElicitationValue,
} from './mcp/types.js';
export type {
  ClientToolCall,
  HeedTool,
  ToolContext,
  ToolDefinition,
  AskOutcome,
  ApproveOutcome,
  TypedAnswer,
} from './tool.js';
export { HeedError, errorStatus } from './errors.js';
export { consoleLogger, jsonLogger, silentLogger } from './logger.js';
export type { Logger, LogLevel } from './logger.js';
export type { HeedErrorCode } from './errors.js';
export type { Caller } from './caller.js';
export type { TurnResult, TurnStatus } from './engine/turn/run-turn.js';
export type { ResolutionInput } from './protocol/resolution-input.js';
export { resolutionInputSchema } from './protocol/resolution-input.js';
export { checkQuestions, coerceAnswer, settleAnswers, summarizeAnswers } from './kinds/question.js';
export { askToolAnswerSchema, askToolInputSchema } from './kinds/question.js';
export type { AskToolAnswer, AskToolInput } from './kinds/question.js';
export type { ActionView, ConversationView, MessageView } from './views.js';
export type { EventNotice, Store } from './store/store.js';
export type { DeliveryEvent, DeliveryRecord, DeliveryStatus, DeliveryTarget } from './store/store.js';
export { memoryStore } from './store/memory/memory-store.js';
export { sqliteStore } from './store/sqlite/sqlite-store.js';
export { postgresStore } from './store/postgres/postgres-store.js';
export type { PoolLike, PostgresStoreOptions } from './store/postgres/postgres-store.js';
export type * from './types.js';
