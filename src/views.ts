import { inputJsonSchema, type AgentDirectory } from './tool.js';
import { kindOf } from './kinds/index.js';
import { conversationTitle } from './protocol/conversation.js';
import { shownMetadata } from './protocol/request-conversation.js';
import type {
  ActionView,
  ApprovalActionView,
  ClientToolActionView,
  ConversationView,
  MessageView,
  QuestionActionView,
  UrlActionView,
} from './protocol/views.js';
import type { ActionRecord, ConversationRecord, MessageRecord } from './types.js';

/** The views' types come from their zod schemas (src/protocol/views.ts), which the HTTP API documents and tests parse with. */
export type {
  ActionView,
  ApprovalActionView,
  ClientToolActionView,
  ConversationView,
  MessageView,
  QuestionActionView,
  UrlActionView,
};

export function actionView(
  directory: AgentDirectory | undefined,
  action: ActionRecord,
  agentName?: string,
): ActionView {
  const definition =
    kindOf(action.kind).viewsToolArgs && action.origin === 'tool' && agentName
      ? directory?.agents.get(agentName)?.tools?.[action.toolName]
      : undefined;
  const resolution = action.resolution;
  return {
    id: action.id,
    ...action.request,
    conversationId: action.conversationId,
    messageId: action.messageId,
    toolCallId: action.toolCallId,
    toolName: action.toolName,
    status: action.status,
    createdAt: action.createdAt,
    ...(action.expiresAt ? { expiresAt: action.expiresAt } : {}),
    ...(definition ? { argsSchema: inputJsonSchema(definition) } : {}),
    ...(resolution ? { resolution } : {}),
    // Once decided, the votes are those of the resolution (the deciding vote included).
    ...(resolution?.type === 'approval' && resolution.votes ? { votes: resolution.votes } : {}),
    ...(action.resolvedBy !== null ? { resolvedBy: action.resolvedBy } : {}),
    ...(action.answeredFor !== undefined ? { answeredFor: action.answeredFor } : {}),
    ...(action.channel ? { channel: action.channel } : {}),
    ...(action.resolvedAt ? { resolvedAt: action.resolvedAt } : {}),
    ...(action.defaulted ? { defaulted: action.defaulted } : {}),
  };
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
    metadata: shownMetadata(conversation.metadata),
    title: conversationTitle(conversation.metadata),
    createdAt: conversation.createdAt,
    updatedAt: conversation.updatedAt,
  };
}

/**
 * Messages as clients see them. The assistant message that asked carries, in `metadata.actions`,
 * every request it made and how each ended; `requiresAction` while any is open.
 */
export function messageViews(
  directory: AgentDirectory,
  conversation: ConversationRecord,
  messages: MessageRecord[],
  actions: ActionRecord[],
): MessageView[] {
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
