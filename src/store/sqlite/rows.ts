import { HeedError } from '../../errors.js';
import { iso, isoOrNull, ms, msOrNull } from '../times.js';
import { json } from '../values.js';
import type { ActionRecord, ConversationRecord, EventType, MessageRecord } from '../../types.js';
import type { ConversationPatch } from '../store.js';
import { eventTypeCodes } from './migrations.js';

// Rows as SQLite returns them, and their conversion to and from records: times are epoch ms, JSON is text.

export interface ConversationRow {
  key: number;
  id: string;
  agent: string;
  owner_id: string | null;
  channel: string | null;
  status: ConversationRecord['status'];
  version: number;
  metadata: string | null;
  created_at: number;
  updated_at: number;
  action_due_at: number | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  tokens_used: number;
  last_event_seq: number;
  intake_done: number;
  queue: string | null;
}

export interface MessageRow {
  position: number;
  id: string;
  role: MessageRecord['role'];
  parts: string;
  metadata: string | null;
  created_at: number;
}

export interface ActionRow {
  id: string;
  message_id: string;
  tool_call_id: string;
  tool_name: string;
  origin: ActionRecord['origin'];
  journal_index: number;
  status: ActionRecord['status'];
  request: string;
  created_at: number;
  expires_at: number | null;
  on_timeout: ActionRecord['onTimeout'];
  resolution: string | null;
  resolved_by: string | null;
  resolved_at: number | null;
  defaulted: string | null;
  channel: ActionRecord['channel'];
  remind_at: string | null;
  answered_for: string | null;
}

export interface EventRow {
  seq: number;
  type: number;
  data: string;
  at: number;
}

export interface RememberedRow {
  tool_name: string;
  remembered_by: string | null;
  remembered_at: number;
}

/** The columns a patch sets, as SQL values; fields it leaves alone are absent. */
export function patchValues(set: ConversationPatch): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  if (set.status !== undefined) values.status = set.status;
  if (set.metadata !== undefined) values.metadata = json(set.metadata);
  if (set.actionDueAt !== undefined) values.action_due_at = msOrNull(set.actionDueAt);
  if (set.leaseOwner !== undefined) values.lease_owner = set.leaseOwner;
  if (set.leaseExpiresAt !== undefined) values.lease_expires_at = msOrNull(set.leaseExpiresAt);
  if (set.tokensUsed !== undefined) values.tokens_used = set.tokensUsed;
  if (set.intakeDone !== undefined) values.intake_done = Number(set.intakeDone);
  if (set.queue !== undefined) values.queue = queueJson(set.queue);
  return values;
}

const eventTypes = new Map(Object.entries(eventTypeCodes).map(([type, code]) => [code, type as EventType]));

export function eventType(code: number): EventType {
  const type = eventTypes.get(code);
  if (type === undefined)
    throw new HeedError('internal_error', `Unknown event type code ${code}: was the file written by a newer Heed?`);
  return type;
}

/** A new conversation's row, with `eventCount` events written beside it. */
export function conversationParams(c: ConversationRecord, eventCount: number) {
  return {
    id: c.id,
    agent: c.agent,
    ownerId: c.ownerId,
    channel: c.channel,
    status: c.status,
    version: c.version,
    metadata: json(c.metadata),
    createdAt: ms(c.createdAt),
    updatedAt: ms(c.updatedAt),
    actionDueAt: msOrNull(c.actionDueAt),
    leaseOwner: c.leaseOwner,
    leaseExpiresAt: msOrNull(c.leaseExpiresAt),
    tokensUsed: c.tokensUsed,
    lastEventSeq: c.lastEventSeq + eventCount,
    intakeDone: Number(c.intakeDone),
    queue: queueJson(c.queue),
  };
}

/** An empty queue is stored as NULL, so a conversation with nothing queued costs nothing. */
function queueJson(queue: ConversationRecord['queue']): string | null {
  return queue && queue.length > 0 ? JSON.stringify(queue) : null;
}

export function toConversation(row: ConversationRow): ConversationRecord {
  return {
    id: row.id,
    agent: row.agent,
    ownerId: row.owner_id,
    channel: row.channel,
    status: row.status,
    version: row.version,
    metadata: parseOrNull(row.metadata),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    actionDueAt: isoOrNull(row.action_due_at),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: isoOrNull(row.lease_expires_at),
    tokensUsed: row.tokens_used,
    lastEventSeq: row.last_event_seq,
    intakeDone: row.intake_done === 1,
    ...(row.queue ? { queue: JSON.parse(row.queue) } : {}),
  };
}

export function toMessage(row: MessageRow, conversationId: string): MessageRecord {
  return {
    id: row.id,
    conversationId,
    position: row.position,
    role: row.role,
    parts: JSON.parse(row.parts),
    metadata: parseOrNull(row.metadata),
    createdAt: iso(row.created_at),
  };
}

export function toAction(row: ActionRow, conversationId: string): ActionRecord {
  const request = JSON.parse(row.request) as ActionRecord['request'];
  return {
    id: row.id,
    conversationId,
    messageId: row.message_id,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    kind: request.kind,
    origin: row.origin,
    journalIndex: row.journal_index,
    status: row.status,
    request,
    createdAt: iso(row.created_at),
    expiresAt: isoOrNull(row.expires_at),
    onTimeout: row.on_timeout,
    resolution: parseOrNull(row.resolution),
    resolvedBy: row.resolved_by,
    ...(row.answered_for !== null ? { answeredFor: row.answered_for } : {}),
    channel: row.channel,
    resolvedAt: isoOrNull(row.resolved_at),
    defaulted: parseOrNull(row.defaulted),
    ...remindAtOf(parseOrNull<string[]>(row.remind_at)),
  };
}

export function parseOrNull<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
/** 1 when a settlement sets the field (even to null), 0 when it leaves it alone. */
export function flag(value: unknown): number {
  return value === undefined ? 0 : 1;
}

/** An action's reminders still to send, as the record has them: absent when none is left. */
export function remindAtOf(times: string[] | null | undefined): { remindAt?: string[] } {
  return times && times.length > 0 ? { remindAt: times } : {};
}
