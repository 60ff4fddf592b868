/**
 * heed/react: components and hooks to answer Heed's requests inside a React app. The chat state
 * lives in plain TypeScript (`createConversationStore`, `createInboxStore`); the hooks are thin
 * wrappers over it.
 */
export { HeedProvider, useClientTool, useConversation, useHeedClient, useHeedUser, useInbox } from './provider.js';
export type { HeedProviderProps, UseConversationResult } from './provider.js';
export { QuestionCard } from './components/question-card.js';
export type { QuestionCardProps } from './components/question-card.js';
export { ApprovalCard, ArgumentsView } from './components/approval-card.js';
export type { ApprovalCardProps } from './components/approval-card.js';
export { UrlCard } from './components/url-card.js';
export type { UrlCardProps } from './components/url-card.js';
export { ClientToolCard } from './components/client-tool-card.js';
export type { ClientToolCardProps } from './components/client-tool-card.js';
export { ActionCard, BuiltInCard } from './components/action-card.js';
export type { ActionCardProps } from './components/action-card.js';
export { SettledCard, settledHeadline } from './components/settled-card.js';
export { GenericCard } from './components/generic-card.js';
export {
  createToolCardRegistry,
  defaultToolCards,
  dismissalOf,
  registerToolCard,
  useToolCard,
  useToolCards,
} from './components/tool-cards.js';
export type { ToolCard, ToolCardProps, ToolCardRegistry } from './components/tool-cards.js';
export { WaitingCard } from './components/waiting-card.js';
export type { WaitingCardProps } from './components/waiting-card.js';
export { whoDecides } from './state/who-decides.js';
export type { WhoDecides } from './state/who-decides.js';
/** The chat workspace a channel conversation lives in, as people name it (`slack:…` is "Slack"). */
export { channelPlatform } from '../protocol/conversation.js';
export { argumentsDiff } from './state/arguments-diff.js';
export type { ArgumentChange } from './state/arguments-diff.js';
export type { GenericCardProps } from './components/generic-card.js';
/**
 * How Heed names an action of any kind, as its kind's presentation says: in a few words (`titleOf`), what it
 * asks in one line (`summaryOf`, `headlineOf` beside its kind's name `nounOf`), a line under that (`detailOf`),
 * how far its votes have got (`progressOf`), what a batch's Approve all or Deny all sends for it (`batchAnswerOf`), the choice an answer link carries (`oneClickChoiceOf`) and how it ended (`outcomeOf`, and in one line `describeResolution`).
 */
export {
  batchAnswerOf,
  describeResolution,
  detailOf,
  headlineOf,
  nounOf,
  oneClickChoiceOf,
  outcomeOf,
  progressOf,
  summaryOf,
  titleOf,
} from '../kinds/index.js';
export type { SettledCardProps } from './components/settled-card.js';
export {
  createClientToolRegistry,
  defaultClientTools,
  registerClientTool,
  rememberStartedConversation,
  runClientTool,
  wasStartedHere,
} from './state/client-tools.js';
export type {
  ClientToolContext,
  ClientToolHandler,
  ClientToolOutcome,
  ClientToolRegistry,
} from './state/client-tools.js';
export { createConversationStore, ownsConversation, toChatError } from './state/conversation-store.js';
export type {
  AlreadyAnswered,
  AnswerResult,
  ChatError,
  ClientToolRun,
  ConversationState,
  ConversationStore,
  ConversationStoreOptions,
} from './state/conversation-store.js';
export { batchOutcome, planBatch } from './state/batch.js';
export type { BatchDecision, BatchItem, BatchOutcome, BatchPlan } from './state/batch.js';
export { createInboxStore } from './state/inbox-store.js';
export type { InboxState, InboxStore } from './state/inbox-store.js';
export { buildTranscript, byWhom, describeResolver } from './state/transcript.js';
export type { NotRun, TranscriptItem } from './state/transcript.js';
// The question form's headless pieces live in heed/client (no React); re-exported here for the cards' users.
export {
  allowsCustom,
  answerLabels,
  buildAnswers,
  coerceAnswer,
  createQuestionForm,
  draftAnswer,
  draftFromValue,
  draftProblem,
  draftProblems,
  initialDrafts,
  optionForHotkey,
  optionHotkey,
  pickOption,
  questionControl,
  setCustom,
} from '../client/index.js';
export type {
  QuestionControl,
  QuestionDraft,
  QuestionDrafts,
  QuestionField,
  QuestionForm,
  QuestionFormState,
} from '../client/index.js';
export { argumentFields, checkJsonSchema } from './state/json-schema-check.js';
export type { ArgumentField, SchemaProblem } from './state/json-schema-check.js';
export type { ActionView, ConversationView, MessageView } from '../views.js';
