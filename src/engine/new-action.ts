import type { Turn } from './turn/turn.js';
import { newId } from '../ids.js';
import { kindOf } from '../kinds/index.js';
import type { ActionOrigin, ActionRecord, ActionRequest } from '../types.js';

export interface NewActionFields {
  origin: ActionOrigin;
  messageId: string;
  toolCallId: string;
  toolName: string;
  journalIndex?: number;
  request: ActionRequest;
  /** Minutes until it lapses, overriding the agent's `hitl.timeoutMinutes` (0 = never). */
  expiresInMinutes?: number;
}

/** A pending action of the turn's conversation, with its deadline and the lapse policy frozen now. */
export function newAction(turn: Turn, fields: NewActionFields): ActionRecord {
  const engine = turn.engine;
  let minutes = fields.expiresInMinutes;
  if (minutes === undefined) {
    if (fields.origin === 'intake') minutes = turn.agent.intake?.timeoutMinutes ?? 0;
    else
      minutes =
        kindOf(fields.request.kind).deadlineMinutes?.(fields.request) ?? engine.setting(turn.agent, 'timeoutMinutes');
  }
  const expiresAt = engine.expiresAfterMinutes(minutes);
  return {
    id: newId('a'),
    conversationId: turn.conversation.id,
    messageId: fields.messageId,
    toolCallId: fields.toolCallId,
    toolName: fields.toolName,
    kind: fields.request.kind,
    origin: fields.origin,
    journalIndex: fields.journalIndex ?? 0,
    status: 'pending',
    request: fields.request,
    createdAt: engine.now(),
    expiresAt,
    // A kind with a policy of its own keeps it whatever the agent says (a client tool: always answered on lapse).
    onTimeout: kindOf(fields.request.kind).onTimeout ?? engine.setting(turn.agent, 'onTimeout'),
    resolution: null,
    resolvedBy: null,
    channel: null,
    resolvedAt: null,
    defaulted: null,
    ...engine.reminderTimes(turn.agent, expiresAt),
  };
}
