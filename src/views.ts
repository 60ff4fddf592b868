import { inputJsonSchema, type AgentDirectory } from './tool.js';
import { kindOf } from './kinds/index.js';
import type {
  ActionKind,
  ActionRecord,
  ActionStatus,
  ApprovalVote,
  ConversationRecord,
  ConversationStatus,
  JsonObject,
  MessageMetadata,
  MessagePart,
  MessageRecord,
  Question,
  ResolutionChannel,
  StoredResolution,
} from './types.js';

/** An action as clients see it: the request's fields flattened beside the bookkeeping. */
export interface ActionView {
  id: string;
  kind: ActionKind;
  conversationId: string;
  messageId: string;
  toolCallId: string;
  toolName: string;
  status: ActionStatus;
  createdAt: string;
  expiresAt?: string;
  // approval / client_tool
  args?: unknown;
  argsSchema?: Record<string, unknown>;
  title?: string;
  summary?: string;
  canRemember?: boolean;
  // approval decided by votes (docs/approvals.md); `args` is then what is under vote
  approvers?: string[];
  required?: number;
  deny?: 'any' | 'majority';
  excludeRequester?: boolean;
  escalate?: { at: string; to: string[]; escalatedAt?: string };
  votes?: ApprovalVote[];
  originalArgs?: unknown;
  clientKind?: string;
  timeoutSeconds?: number;
  // question
  preamble?: string;
  questions?: Question[];
  // url
  url?: string;
  message?: string;
  resolution?: StoredResolution;
  /** The user id of whoever settled it; absent for an anonymous caller, the system and a lapse. */
  resolvedBy?: string;
  /** How it was settled: `api` (a person), `system`, `timeout` (it lapsed), `remembered`. */
  channel?: ResolutionChannel;
  resolvedAt?: string;
  defaulted?: string[];
}

export function actionView(directory: AgentDirectory | undefined, action: ActionRecord, agentName?: string): ActionView {
  const { kind: _kind, ...request } = action.request;
  const view: ActionView = {
    id: action.id,
    kind: action.kind,
    conversationId: action.conversationId,
    messageId: action.messageId,
    toolCallId: action.toolCallId,
    toolName: action.toolName,
    status: action.status,
    createdAt: action.createdAt,
    ...(action.expiresAt ? { expiresAt: action.expiresAt } : {}),
    ...request,
  };
  if (kindOf(action.kind).viewsToolArgs && action.origin === 'tool' && agentName && directory) {
    const definition = directory.agents.get(agentName)?.tools?.[action.toolName];
    if (definition) view.argsSchema = inputJsonSchema(definition);
  }
  if (action.resolution) view.resolution = action.resolution;
  // Once decided, the votes are those of the resolution (the deciding vote included).
  if (action.resolution?.type === 'approval' && action.resolution.votes) view.votes = action.resolution.votes;
  if (action.resolvedBy !== null) view.resolvedBy = action.resolvedBy;
  if (action.channel) view.channel = action.channel;
  if (action.resolvedAt) view.resolvedAt = action.resolvedAt;
  if (action.defaulted) view.defaulted = action.defaulted;
  return view;
}

export interface ConversationView {
  id: string;
  agent: string;
  ownerId: string | null;
  channel: string | null;
  status: ConversationStatus;
  version: number;
  /** Number of the last event in the log: follow the stream from here to see only what comes next. */
  lastEventSeq: number;
  metadata: JsonObject | null;
  createdAt: string;
  updatedAt: string;
}

export function conversationView(conversation: ConversationRecord): ConversationView {
  return {
    id: conversation.id,
    agent: conversation.agent,
    ownerId: conversation.ownerId,
    channel: conversation.channel,
    status: conversation.status,
    version: conversation.version,
    lastEventSeq: conversation.lastEventSeq,
    metadata: conversation.metadata,
    createdAt: conversation.createdAt,
    updatedAt: conversation.updatedAt,
  };
}

export interface MessageView {
  id: string;
  role: MessageRecord['role'];
  parts: MessagePart[];
  createdAt: string;
  metadata?: MessageMetadata & { actions?: ActionView[]; requiresAction?: boolean };
}

/**
 * Messages as clients see them. The assistant message that asked carries, in `metadata.actions`,
 * every request it made and how each ended; `requiresAction` while any is open.
 */
export function messageViews(directory: AgentDirectory, conversation: ConversationRecord, messages: MessageRecord[], actions: ActionRecord[]): MessageView[] {
  const byMessage = new Map<string, ActionView[]>();
  for (const action of actions) {
    const list = byMessage.get(action.messageId) ?? [];
    list.push(actionView(directory, action, conversation.agent));
    byMessage.set(action.messageId, list);
  }
  return messages.map((message) => messageView(message, byMessage.get(message.id)));
}

export function messageView(message: MessageRecord, actions?: ActionView[]): MessageView {
  const view: MessageView = { id: message.id, role: message.role, parts: message.parts, createdAt: message.createdAt };
  if (message.metadata || actions) {
    view.metadata = { ...(message.metadata ?? {}) };
    if (actions) {
      view.metadata.actions = actions;
      view.metadata.requiresAction = actions.some((action) => action.status === 'pending');
    }
  }
  return view;
}
