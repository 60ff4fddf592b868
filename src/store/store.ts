import type {
  ActionRecord,
  ActionStatus,
  ConversationRecord,
  ConversationStatus,
  EventRecord,
  EventType,
  JsonObject,
  MessageRecord,
  RememberedTool,
  StoredResolution,
} from '../types.js';

/** Conversation fields a change may set. */
export type ConversationPatch = Partial<
  Pick<
    ConversationRecord,
    'status' | 'actionDueAt' | 'leaseOwner' | 'leaseExpiresAt' | 'tokensUsed' | 'intakeDone' | 'metadata' | 'updatedAt'
  >
>;

/** Settles one action; refused unless the action is still `pending`. */
export interface ActionSettlement {
  id: string;
  status: Exclude<ActionStatus, 'pending'>;
  resolution: StoredResolution;
  resolvedBy: string;
  resolvedAt: string;
  defaulted?: string[] | null;
}

/** An event to append; the store numbers it. */
export interface NewEvent {
  type: EventType;
  data: JsonObject;
  at: string;
}

/**
 * One atomic write to one conversation. Either all of it is applied, or none of it (`ok: false`).
 * Every applied change bumps the conversation's version by one.
 */
export interface Change {
  conversationId: string;
  /** Insert this conversation (refused with `exists` if the id is taken). */
  create?: ConversationRecord;
  /** Compare-and-set: refused with `version` unless the stored version equals this. Required unless `create`. */
  expectVersion?: number;
  set?: ConversationPatch;
  messages?: MessageRecord[];
  actions?: ActionRecord[];
  settle?: ActionSettlement[];
  /** Appended in order and numbered after the conversation's last event. */
  events?: NewEvent[];
  remember?: RememberedTool[];
}

export type CommitResult =
  | { ok: true; conversation: ConversationRecord; events: EventRecord[] }
  | { ok: false; reason: 'version' | 'exists' | 'not_found' | 'action_not_pending' };

export interface ConversationFilter {
  /** Only conversations owned by this user id; `null` selects ownerless ones. Omit for all. */
  ownerId?: string | null;
  status?: ConversationStatus;
  agent?: string;
  /** Page size (default 50) and cursor: the `updatedAt`/`id` of the last row of the previous page. */
  limit?: number;
  before?: { updatedAt: string; id: string };
}

export interface PendingFilter {
  /** Only actions of conversations owned by this user id; `null` selects ownerless ones. Omit for all. */
  ownerId?: string | null;
  limit?: number;
  /** Cursor: the `createdAt`/`id` of the last row of the previous page. */
  after?: { createdAt: string; id: string };
}

/** Another process committed events to a conversation; `seq` is the last one's number. */
export interface EventNotice {
  conversationId: string;
  seq: number;
}

/**
 * Where Heed keeps conversations, messages, actions and events. Every implementation passes the
 * same contract suite (`store-contract.ts`).
 */
export interface Store {
  /** Creates or upgrades the schema. Called once by `createHeed`; safe to call again. */
  migrate(): Promise<void>;
  /** Applies one change atomically. */
  commit(change: Change): Promise<CommitResult>;

  getConversation(id: string): Promise<ConversationRecord | undefined>;
  /** Newest first by `updatedAt`. */
  listConversations(filter: ConversationFilter): Promise<ConversationRecord[]>;
  /** In position order. */
  listMessages(conversationId: string): Promise<MessageRecord[]>;

  getAction(conversationId: string, actionId: string): Promise<ActionRecord | undefined>;
  /** Every action of a conversation, oldest first. */
  listActions(conversationId: string): Promise<ActionRecord[]>;
  /** Pending actions across conversations, oldest first (the inbox). */
  listPendingActions(filter: PendingFilter): Promise<ActionRecord[]>;

  /** Events numbered after `after`, in order, at most `limit` (default 500). */
  listEvents(conversationId: string, options?: { after?: number; limit?: number }): Promise<EventRecord[]>;

  listRememberedTools(conversationId: string): Promise<RememberedTool[]>;
  /** Forgets a remembered tool without touching the conversation's version; false when it was not remembered. */
  forgetTool(conversationId: string, toolName: string): Promise<boolean>;

  /**
   * Conversations the sweep must look at: `actionDueAt <= now`, or `status = 'running'` with a lease
   * that lapsed before `now`. Found through an index; at most `limit`.
   */
  listDue(now: string, limit: number): Promise<ConversationRecord[]>;

  /**
   * Optional, for stores shared by several processes (PostgreSQL): calls `onEvents` whenever any
   * process commits events, and `onReconnect` when notices may have been missed (the connection that
   * carries them dropped and came back). Resolves with a function that stops listening.
   */
  listen?(onEvents: (notice: EventNotice) => void, onReconnect?: () => void): Promise<() => Promise<void>>;

  close(): Promise<void>;
}
