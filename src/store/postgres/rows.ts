import { iso, isoOrNull } from '../times.js';
import { storedEvent } from '../../protocol/events.js';
import type {
  ActionRecord,
  ConversationRecord,
  EventRecord,
  EventType,
  JsonObject,
  MessageRecord,
  RememberedTool,
} from '../../types.js';

// Rows as PostgreSQL returns them, and their conversion to records. Times are epoch ms; `pg` hands BIGINT
// columns over as strings (and as numbers inside row_to_json), so every number goes through Number().
// JSON columns arrive parsed, as fresh objects.

type Int8 = string | number;

export const conversationColumns =
  'key, id, agent, owner_id, channel, status, version, metadata, created_at, updated_at, action_due_at, ' +
  'lease_owner, lease_expires_at, tokens_used, last_event_seq, intake_done, queue';

export const actionColumns =
  'id, message_id, tool_call_id, tool_name, origin, journal_index, status, request, created_at, expires_at, ' +
  'on_timeout, resolution, resolved_by, resolved_at, defaulted, channel, remind_at, answered_for';

export interface ConversationRow {
  key: Int8;
  id: string;
  agent: string;
  owner_id: string | null;
  channel: string | null;
  status: ConversationRecord['status'];
  version: number;
  metadata: ConversationRecord['metadata'];
  created_at: Int8;
  updated_at: Int8;
  action_due_at: Int8 | null;
  lease_owner: string | null;
  lease_expires_at: Int8 | null;
  tokens_used: Int8;
  last_event_seq: Int8;
  intake_done: boolean;
  queue: ConversationRecord['queue'] | null;
}

export interface MessageRow {
  position: number;
  id: string;
  role: MessageRecord['role'];
  parts: MessageRecord['parts'];
  metadata: MessageRecord['metadata'];
  created_at: Int8;
}

export interface ActionRow {
  id: string;
  message_id: string;
  tool_call_id: string;
  tool_name: string;
  origin: ActionRecord['origin'];
  journal_index: number;
  status: ActionRecord['status'];
  request: ActionRecord['request'];
  created_at: Int8;
  expires_at: Int8 | null;
  on_timeout: ActionRecord['onTimeout'];
  resolution: ActionRecord['resolution'];
  resolved_by: string | null;
  resolved_at: Int8 | null;
  defaulted: string[] | null;
  channel: ActionRecord['channel'];
  remind_at?: string[] | null;
  answered_for: string | null;
}

export interface EventRow {
  seq: Int8;
  type: EventType;
  data: JsonObject;
  at: Int8;
}

export interface RememberedRow {
  tool_name: string;
  remembered_by: string | null;
  remembered_at: Int8;
}

export function toConversation(row: ConversationRow): ConversationRecord {
  return {
    id: row.id,
    agent: row.agent,
    ownerId: row.owner_id,
    channel: row.channel,
    status: row.status,
    version: Number(row.version),
    metadata: row.metadata ?? null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    actionDueAt: isoOrNull(row.action_due_at),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: isoOrNull(row.lease_expires_at),
    tokensUsed: Number(row.tokens_used),
    lastEventSeq: Number(row.last_event_seq),
    intakeDone: row.intake_done,
    ...(row.queue && row.queue.length > 0 ? { queue: row.queue } : {}),
  };
}

export function toMessage(row: MessageRow, conversationId: string): MessageRecord {
  return {
    id: row.id,
    conversationId,
    position: row.position,
    role: row.role,
    parts: row.parts,
    metadata: row.metadata ?? null,
    createdAt: iso(row.created_at),
  };
}

export function toAction(row: ActionRow, conversationId: string): ActionRecord {
  return {
    id: row.id,
    conversationId,
    messageId: row.message_id,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    kind: row.request.kind,
    origin: row.origin,
    journalIndex: row.journal_index,
    status: row.status,
    request: row.request,
    createdAt: iso(row.created_at),
    expiresAt: isoOrNull(row.expires_at),
    onTimeout: row.on_timeout,
    resolution: row.resolution ?? null,
    resolvedBy: row.resolved_by,
    ...(row.answered_for != null ? { answeredFor: row.answered_for } : {}),
    channel: row.channel ?? null,
    resolvedAt: isoOrNull(row.resolved_at),
    defaulted: row.defaulted ?? null,
    ...(row.remind_at && row.remind_at.length > 0 ? { remindAt: row.remind_at } : {}),
  };
}

export function toEvent(row: EventRow, conversationId: string): EventRecord {
  return storedEvent({ conversationId, seq: Number(row.seq), type: row.type, data: row.data, at: iso(row.at) });
}

export function toRemembered(row: RememberedRow): RememberedTool {
  return { toolName: row.tool_name, rememberedBy: row.remembered_by, rememberedAt: iso(row.remembered_at) };
}
