import type {
  ActionRecord,
  ActionRequest,
  ActionStatus,
  ConversationRecord,
  ConversationStatus,
  EventRecord,
  JsonObject,
  MessageRecord,
  RememberedTool,
  AnswerSurface,
  StoredResolution,
} from '../types.js';

/** Conversation fields a change may set. */
export type ConversationPatch = Partial<
  Pick<
    ConversationRecord,
    | 'status'
    | 'actionDueAt'
    | 'leaseOwner'
    | 'leaseExpiresAt'
    | 'tokensUsed'
    | 'intakeDone'
    | 'metadata'
    | 'updatedAt'
    | 'queue'
  >
>;

/** Settles one action; refused unless the action is still `pending`. */
export interface ActionSettlement {
  id: string;
  status: Exclude<ActionStatus, 'pending'>;
  resolution: StoredResolution;
  /** User id, or null (anonymous caller, system, lapse). */
  resolvedBy: string | null;
  /** Whom `resolvedBy` answered for, as their delegate; absent otherwise. */
  answeredFor?: string;
  channel: AnswerSurface;
  resolvedAt: string;
  defaulted?: string[] | null;
}

/**
 * A new request for a pending action: what it asks stays, its votes and approvers change; with `expiresAt`
 * and `remindAt`, its deadline and the reminders still to send change too.
 */
export interface ActionRevision {
  id: string;
  request: ActionRequest;
  /**
   * Why: a vote, an escalation (which notifies like a new request, docs/notifications.md), a reminder sent
   * (which notifies the same people again) or an extension of the deadline.
   */
  reason: 'vote' | 'escalation' | 'reminder' | 'extension';
  /** The new deadline (null: never lapses); absent: unchanged. */
  expiresAt?: string | null;
  /** The reminders still to send; absent: unchanged. */
  remindAt?: string[] | null;
}

/** An event to append; the store numbers it. Built with `newEvent` (src/protocol/events.ts). */
export type { NewEvent } from '../protocol/events.js';
import type { NewEvent } from '../protocol/events.js';
import type { AuditAnchor, AuditAppend, AuditEntry } from './audit.js';

/** What any change may write to its conversation. */
interface ChangeParts {
  conversationId: string;
  set?: ConversationPatch;
  messages?: MessageRecord[];
  actions?: ActionRecord[];
  /** Appended in order and numbered after the conversation's last event. */
  events?: NewEvent[];
  remember?: RememberedTool[];
  /** Notifications this change causes (the outbox): written with it, or not at all. */
  deliveries?: NewDelivery[];
  /** Audit entries recording the decisions this change makes (src/store/audit.ts): chained in its transaction. */
  audit?: AuditAppend;
  /**
   * `false`: the writer goes on without waiting for this commit to reach the disk, because a later commit of
   * the same turn, which does wait, comes before anything is promised or done on it (a turn's claim, a tool's
   * result before the next model call: the side effect, pause, reply or failure that follows flushes it).
   * A store process that crashes in between may forget it; a Heed process that crashes may not. A change
   * that carries deliveries always waits (the runner drops this flag). PostgreSQL: `synchronous_commit` off
   * for that commit; SQLite at `synchronous: 'full'`: that commit at NORMAL (no fsync; the next commit's
   * fsync of the WAL covers it); the memory store has no disk.
   */
  waitForFlush?: false;
}

/** A change to a conversation that exists: compare-and-set, refused with `version` unless the stored version equals `expectVersion`. */
export interface UpdateChange extends ChangeParts {
  expectVersion: number;
  create?: undefined;
  settle?: ActionSettlement[];
  /**
   * Replaces the request of actions that are still `pending` (a vote, an escalation); refused with
   * `action_not_pending` otherwise. An action is not both revised and settled in one change.
   */
  revise?: ActionRevision[];
}

/**
 * A new conversation (refused with `exists` if the id is taken), with what it starts with: nothing to
 * compare and nothing stored to revise; it may settle actions it inserts. `conversationId` is `create.id`
 * (the runner checks it).
 */
export interface CreateChange extends ChangeParts {
  create: ConversationRecord;
  expectVersion?: undefined;
  settle?: ActionSettlement[];
  revise?: undefined;
}

/**
 * One atomic write to one conversation: an update or a create, told apart by `create`. Either all of it is
 * applied, or none of it (`ok: false`). Every applied change bumps the conversation's version by one.
 */
export type Change = UpdateChange | CreateChange;

/**
 * What a notification is about: an action was raised, answered, lapsed or cancelled, or is still waiting
 * as its deadline nears (`action.reminder`, `hitl.remind`).
 */
export type DeliveryEvent =
  'action.required' | 'action.reminder' | 'action.resolved' | 'action.expired' | 'action.cancelled';

/**
 * What a channel delivery is about: the action events, or `message.created`, an agent's reply to post in
 * the channel (its `actionId` then holds the message's id).
 */
export type ChannelDeliveryEvent = DeliveryEvent | 'message.created' | 'task.status';

/**
 * Where a delivery goes: a webhook by its URL, one email recipient, a channel's conversation (the
 * conversation's `channel`, e.g. `slack:T1:C1:1700000000.000100`; its adapter posts there), or the
 * `callbackUrl` of a request made with `POST /api/requests`, an A2A push-notification config (docs/a2a.md; its
 * `actionId` is then the config's id), or one person's Web Push subscriptions (`to`: their user id).
 */
export type DeliveryTarget =
  | { type: 'webhook'; url: string }
  | { type: 'email'; to: string }
  | { type: 'channel'; channel: string }
  | { type: 'callback'; url: string }
  | { type: 'a2a'; url: string; configId: string }
  | { type: 'push'; to: string };

/** A notification to send, written in the same commit as the change that causes it. */
export interface NewDelivery {
  /** Stable across retries: receivers de-duplicate on it (the webhook's `webhook-id`). */
  id: string;
  event: ChannelDeliveryEvent;
  actionId: string;
  target: DeliveryTarget;
  createdAt: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dropped';

export interface DeliveryRecord extends NewDelivery {
  conversationId: string;
  status: DeliveryStatus;
  /** Attempts started so far (a claim counts as one). */
  attempts: number;
  /** When the next attempt may start (pending) or null once finished. */
  dueAt: string | null;
  lastError: string | null;
  /** When it was delivered, given up on, or dropped. */
  finishedAt: string | null;
  /** What the receiver answered, when it matters later (a channel's id for the posted message); null otherwise. */
  receipt: JsonObject | null;
}

/** How an attempt ended: finished for good, or back to pending until `dueAt`. */
export type DeliveryOutcome =
  | { status: 'delivered' | 'failed' | 'dropped'; at: string; error?: string | null; receipt?: JsonObject }
  | { status: 'pending'; dueAt: string; error: string };

export interface DeliveryFilter {
  status?: DeliveryStatus;
  /** Only the deliveries about this action (or, for a channel reply, this message). */
  actionId?: string;
  limit?: number;
  /** Cursor: the `createdAt`/`id` of the last row of the previous page. */
  after?: { createdAt: string; id: string };
}

export type CommitResult =
  | { ok: true; conversation: ConversationRecord; events: EventRecord[] }
  | { ok: false; reason: 'version' | 'exists' | 'not_found' | 'action_not_pending' };

export interface ConversationFilter {
  /** Only conversations owned by this user id; `null` selects ownerless ones. Omit for all. */
  ownerId?: string | null;
  status?: ConversationStatus;
  agent?: string;
  /**
   * Only conversations whose title (`metadata.title`, a string) or agent name contains this text,
   * ignoring case (on SQLite, the case of A–Z only).
   */
  search?: string;
  /** Page size (default 50) and cursor: the `updatedAt`/`id` of the last row of the previous page. */
  limit?: number;
  before?: { updatedAt: string; id: string };
}

export interface PendingFilter {
  /** Only actions of conversations owned by this user id; `null` selects ownerless ones. Omit for all. */
  ownerId?: string | null;
  /** With `ownerId`: also the actions that name this user id among their `approvers`. */
  approver?: string;
  /** With `approver`: the groups they are in; actions naming `group:<name>` of one of them are listed too. */
  groups?: string[];
  limit?: number;
  /** Cursor: the `createdAt`/`id` of the last row of the previous page. */
  after?: { createdAt: string; id: string };
}

/** Pending actions of one agent and kind (the Queue page, `/metrics`). */
export interface PendingCount {
  agent: string;
  kind: string;
  count: number;
  /** When the oldest of them was asked. */
  oldestCreatedAt: string;
  over1Day: number;
  over3Days: number;
  over7Days: number;
}

/** An action a person settled, and when it was asked and answered. */
export interface DecisionTime {
  agent: string;
  kind: string;
  channel: AnswerSurface | null;
  createdAt: string;
  resolvedAt: string;
}

/** A page of a conversation's messages, newest last: `limit` messages before the message `before`. */
export interface MessagePage {
  /** A message id: only messages before it. */
  before?: string;
  limit?: number;
}

/** What `readConversation` reads beside the conversation. */
export interface ConversationParts {
  messages?: boolean;
  actions?: boolean;
  remembered?: boolean;
  /**
   * The messages too, but only when the action with this id is the conversation's one pending action (an
   * answer to it closes the pause, and its turn needs them): an answer reads what it needs in one read,
   * and a refused one or a vote reads no long conversation.
   */
  messagesWhenClosing?: string;
}

/** A conversation with the parts that were asked for (in the orders of listMessages, listActions, listRememberedTools). */
export interface ConversationRead {
  conversation: ConversationRecord;
  messages?: MessageRecord[];
  actions?: ActionRecord[];
  remembered?: RememberedTool[];
}

/** One value an agent adapter keeps (`Store.listValues`). */
export interface StoredValue {
  key: string;
  value: string;
}

/** Values written with an audit entry, in its transaction (`Store.appendAudit`): some put, some scopes or keys dropped. */
export interface ValueWrites {
  put?: ScopedValue[];
  drop?: Array<{ scope: string; keys?: string[] }>;
}

/** A value to write under its scope (`Store.putValues`). */
export interface ScopedValue extends StoredValue {
  scope: string;
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
  /**
   * A conversation and the parts asked for, read from one snapshot, so the parts agree with the
   * conversation's `version` (one read where the engine needs several; one round trip on PostgreSQL).
   */
  readConversation(id: string, parts: ConversationParts): Promise<ConversationRead | undefined>;
  /** Newest first by `updatedAt`. */
  listConversations(filter: ConversationFilter): Promise<ConversationRecord[]>;
  /**
   * In position order. With `limit`, only the newest `limit` messages (before the message `before`, when
   * given; an id that names no message of the conversation selects none), still in position order.
   */
  listMessages(conversationId: string, page?: MessagePage): Promise<MessageRecord[]>;

  getAction(conversationId: string, actionId: string): Promise<ActionRecord | undefined>;
  /** Every action of a conversation, oldest first. */
  listActions(conversationId: string): Promise<ActionRecord[]>;
  /** Pending actions across conversations, oldest first (the inbox). */
  listPendingActions(filter: PendingFilter): Promise<ActionRecord[]>;

  /** Any conversation's action by its id alone (action ids are unique across conversations): batch answers. */
  findAction(actionId: string): Promise<ActionRecord | undefined>;
  /** Pending actions counted by agent and kind, with how many have waited more than 1, 3 and 7 days at `now`. */
  countPending(now: string): Promise<PendingCount[]>;
  /**
   * Actions a person settled (not a lapse, Heed itself or a remembered approval) at `since` or later, newest
   * first, at most `limit`: how long each waited. Reads every action settled since then (no index: the Queue
   * page and `/metrics` ask for a few days at most).
   */
  listDecisionTimes(since: string, limit: number): Promise<DecisionTime[]>;

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
  /**
   * Claims up to `limit` pending deliveries due at `now`, oldest due first: each one's attempts grow by one
   * and it is not due again before `until`, so no other process claims it meanwhile (PostgreSQL: `FOR
   * UPDATE SKIP LOCKED`). A claim that is never finished (its process died) comes due again at `until`.
   */
  claimDeliveries(now: string, until: string, limit: number): Promise<DeliveryRecord[]>;
  /** Records how a claimed delivery's attempt ended. */
  finishDelivery(id: string, outcome: DeliveryOutcome): Promise<void>;
  /** Deliveries, oldest first, optionally of one status (operators list the failed ones). */
  listDeliveries(filter: DeliveryFilter): Promise<DeliveryRecord[]>;
  /**
   * A random secret stored under `name`, made the first time it is asked for: every process on the same
   * store reads the same one (answer links are signed with it when `notify.linkSecret` is not set).
   */
  secret(name: string): Promise<string>;

  /**
   * Values an agent adapter keeps between calls, grouped by `scope` (a LangGraph thread's checkpoints, an
   * OpenAI Agents run's state): every value of a scope, in key order.
   */
  listValues(scope: string): Promise<StoredValue[]>;
  /** Writes values, replacing those with the same scope and key, all or none. */
  putValues(values: ScopedValue[]): Promise<void>;
  /** Removes values of `scope`: the ones named by `keys`, or all of them. */
  deleteValues(scope: string, keys?: string[]): Promise<void>;
  /**
   * Compare-and-set of one value: when the value under `scope` and `key` is `expected` (null: there is
   * none), makes it `next` (null: removes it) and resolves true; else changes nothing and resolves false.
   * Atomic across processes sharing the store: channels build their locks and dedupe claims on it.
   */
  swapValue(scope: string, key: string, expected: string | null, next: string | null): Promise<boolean>;

  /**
   * Appends audit entries for decisions that change no conversation (sign-ins, tokens, delegations), with
   * the value writes that make the decision (`values`), in one transaction: neither is kept without the other.
   */
  appendAudit(append: AuditAppend, values?: ValueWrites): Promise<void>;
  /** Audit entries in `seq` order after `after` (default 0), at `since` or later when given, at most `limit` (default 500). */
  listAudit(page: AuditPage): Promise<AuditEntry[]>;
  /** Where the chain that is kept starts: the last pruned entry, or seq 0 and 64 zeros. */
  auditAnchor(): Promise<AuditAnchor>;
  /** Removes audit entries older than `before` from the front, keeping the last removed one's hash as the anchor; how many went. */
  pruneAudit(before: string): Promise<number>;

  /**
   * Retention: deletes up to `limit` conversations last changed before `before` that are idle with nothing
   * queued (nothing pending, no running turn), with their messages, actions, events, deliveries, remembered
   * tools and the adapter values under their id, in one transaction; how many went. Then returns freed pages
   * to the file system where the store can (SQLite's incremental vacuum).
   */
  deleteFinished(before: string, limit: number): Promise<number>;
  /** Erasure (`DELETE /api/people/:userId`): see `Erasure`. */
  erasePerson(erasure: Erasure): Promise<ErasureCounts>;

  listen?(onEvents: (notice: EventNotice) => void, onReconnect?: () => void): Promise<() => Promise<void>>;

  close(): Promise<void>;
}

/** A page of the audit log. */
export interface AuditPage {
  after?: number;
  /** ISO time: only entries at or after it. */
  since?: string;
  limit?: number;
}

/**
 * What erasing a person removes and replaces, in one transaction: the conversations they own (with all their
 * parts), their id in others' records (who answered, voted, remembered, delegated; inside JSON too) replaced
 * by `pseudonym`, their row in the audit pseudonym table, and adapter values that name them.
 */
export interface Erasure {
  userId: string;
  /** `erased:<8 hex>`. */
  pseudonym: string;
  /** Their audit pseudonym (`p_…`): its mapping row is deleted, the chain is not touched. */
  auditKey: string;
  /** Values under scopes starting with one of these whose key is the id, or whose value names it as a JSON string, are deleted. */
  valuePrefixes: string[];
  /** Whole scopes deleted. */
  valueScopes: string[];
  /** The erasure's own audit entry, appended in its transaction. */
  audit?: AuditAppend;
}

/** What an erasure did: conversations and actions deleted, records where the id was replaced. */
export interface ErasureCounts {
  conversations: number;
  actions: number;
  replaced: number;
}
