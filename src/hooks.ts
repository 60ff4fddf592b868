import { commitWrite, transact } from './engine/transact.js';
import { A2A_SETTINGS_KEY, a2aPushConfigs, type A2aPushConfig } from './protocol/request-conversation.js';
import type { Logger } from './logger.js';
import type { Tracing } from './telemetry/tracing.js';
import type { ChannelHost } from './channels/channel.js';
import type { AgentConfig } from './config.js';
import { newConversationRecord, type Engine } from './engine/engine.js';
import { followEvents, type Follow, type FollowOptions, type Recheck } from './engine/follow.js';
import { readEventsWithActions } from './engine/hydrate.js';
import { sendMessage } from './engine/send.js';
import { settleAction } from './engine/settle.js';
import {
  clearDelegation,
  delegationOf,
  heldBy,
  setDelegation,
  type Delegation,
  type HeldDelegation,
} from './engine/delegation.js';
import { HeedError } from './errors.js';
import { recordAudit, type AuditRecorder } from './engine/audit.js';
import { erasePerson, type EraseInput } from './engine/erase.js';
import type { Notifier } from './notify/notifier.js';
import type { ErasureCounts, Store } from './store/store.js';
import type { ActionRecord, EventRecord, StoredResolution } from './types.js';
import type { Caller } from './caller.js';
import { kindOf } from './kinds/index.js';
import { checkResolution } from './kinds/validate-resolution.js';

/*
 * The two narrow seams createHeed gives the layers built on it, so that neither reaches the whole Engine:
 * `HeedHooks` for the HTTP app (read once with `hooksOf` when the app is made, then given to every route as `host`),
 * `ChannelHost` for a channel's adapter.
 */

/** What the HTTP app needs beyond the public `Heed`. Internal: the package's entry point does not export it. */
export interface HeedHooks {
  /** The agents by name: their tools' argument schemas in views, and whether an agent asks (AI SDK parts). */
  readonly agents: ReadonlyMap<string, AgentConfig>;
  /** `limits.conversationsPerMinute`: new conversations each caller may start per minute (0 = no limit). */
  readonly conversationsPerMinute: number;
  /** `limits.mcpWaitingPerCaller`: MCP server calls one caller may have waiting at once. */
  readonly mcpWaitingPerCaller: number;
  /** Reads with no access check: for a caller checked already, a signed link's action, the operators' deliveries. */
  readonly store: Pick<
    Store,
    | 'getConversation'
    | 'getAction'
    | 'findAction'
    | 'listActions'
    | 'listMessages'
    | 'listDeliveries'
    | 'countPending'
    | 'listDecisionTimes'
  >;
  /**
   * Values kept by scope, each written by compare-and-set across the instances on the store: the last state an
   * A2A push config's deliveries took (http/a2a/push.ts), so two instances' outboxes do not both send it; and
   * people's Web Push subscriptions (notify/push.ts).
   */
  readonly values: Pick<Store, 'listValues' | 'putValues' | 'swapValue' | 'deleteValues' | 'secret'>;
  /**
   * Follows a conversation's events after `after` (stored backlog, then live), with no access check of its
   * own; with `recheck` (from `readerRecheck`) the caller's access is asked again as it follows.
   */
  follow(conversationId: string, after: number, listener: (event: EventRecord) => void, options: FollowOptions): Follow;
  /**
   * For a caller who may read the conversation (else 404 `not_found`): how to ask again while they follow
   * it, or undefined when their access cannot end meanwhile (Engine.readerRecheck).
   */
  readerRecheck(conversationId: string, caller: Caller): Promise<Recheck | undefined>;
  /** Followers in this process ask `readerRecheck` again now (a session or a delegation ended). */
  accessChanged(): void;
  /** A page of a conversation's stored events after `after`, with their actions, with no access check. */
  events(conversationId: string, options: { after: number; limit: number }): Promise<EventRecord[]>;
  /** Calls `listener` whenever any conversation may have changed (undefined: notices may have been missed). */
  onAnyChange(listener: (conversationId: string | undefined) => void): () => void;
  /** Calls `listener` with the events of each commit this process makes (`/metrics`). */
  onCommitted(listener: (events: EventRecord[]) => void): () => void;
  /** The clock the engine reads (tests move it). */
  now(): string;
  /** Runs a detached promise (a continuation after the response), so `close()` waits for it. */
  track<T>(promise: Promise<T>): Promise<T>;
  /** Webhooks, mail, answer links and channels (docs/notifications.md): link tokens, operators, a channel's adapter. */
  readonly notifier: Notifier;
  /** The Heed's `logger` (createHeed's option). */
  readonly logger: Logger;
  /** Whether spans are made (`telemetry`): an incoming `traceparent` is then continued. */
  readonly tracing: Pick<Tracing, 'enabled'>;
  /**
   * Checks an answer to an action of a conversation of `agent` as settling it would (the kind's own access
   * rule for `caller`, then the 400s of the order), recording nothing, and gives the answer as it would be
   * stored: a surface that settles several answers at once refuses them all before it settles one.
   */
  checkAnswer(agent: string, action: ActionRecord, raw: unknown, caller: Caller): Promise<StoredResolution>;
  /**
   * A conversation's A2A push-notification configs (docs/a2a.md), kept in its metadata: `edit` gets the
   * current list and returns the new one, written with compare-and-set; resolves with the list written.
   */
  editA2aPush(conversationId: string, edit: (configs: A2aPushConfig[]) => A2aPushConfig[]): Promise<A2aPushConfig[]>;
  /** Appends decisions that change no conversation to the audit log (sign-ins, personal tokens), with their value writes. */
  audit: AuditRecorder;
  /** Erases a person (docs/operating.md); `valuesOf` names what sign-in keeps of them. */
  erase(input: Omit<EraseInput, 'at'>): Promise<ErasureCounts>;
  /** The audit log, its anchor, and the chain's check (admins' routes). */
  readonly auditLog: Pick<Store, 'listAudit' | 'auditAnchor'>;
  /** A signed-in person's delegation (docs/approvals.md, Delegation), read and set at the engine's clock. */
  readonly delegation: {
    /** Theirs in force, and the ones they hold for others. */
    get(userId: string): Promise<{ delegation: Delegation | null; holding: HeldDelegation[] }>;
    /** Checked and stored (400 `invalid_request` otherwise, nothing stored). */
    set(userId: string, input: { to?: unknown; until?: unknown }): Promise<void>;
    clear(userId: string): Promise<void>;
  };
}

export function httpHooks(engine: Engine, notifier: Notifier): HeedHooks {
  return {
    notifier,
    tracing: engine.tracing,
    agents: engine.agents,
    conversationsPerMinute: engine.limits.conversationsPerMinute,
    mcpWaitingPerCaller: engine.limits.mcpWaitingPerCaller,
    store: engine.store,
    values: engine.store,
    follow: (conversationId, after, listener, options) =>
      followEvents(engine.store, engine.bus, conversationId, after, listener, options),
    accessChanged: () => engine.bus.accessChanged(),
    readerRecheck: async (conversationId, caller) =>
      engine.readerRecheck(await engine.readableConversation(conversationId, caller), caller),
    events: (conversationId, options) => readEventsWithActions(engine.store, conversationId, options),
    onAnyChange: (listener) => engine.bus.onAny(listener),
    onCommitted: (listener) => engine.bus.onCommitted(listener),
    now: () => engine.now(),
    track: (promise) => engine.track(promise),
    logger: engine.logger,
    checkAnswer: async (agent, action, raw, caller) => {
      const config = engine.agents.get(agent);
      await kindOf(action.kind).checkAccess?.(action, { caller, agent: config, agentName: agent });
      return checkResolution(config, action, raw, {
        limits: engine.limits,
        validateApprovedArgs: engine.setting(config, 'validateApprovedArgs'),
      }).stored;
    },
    editA2aPush: async (conversationId, edit) => {
      const result = await transact(
        engine,
        conversationId,
        {},
        ({ conversation }) => {
          const configs = edit(a2aPushConfigs(conversation));
          const metadata = { ...conversation.metadata, [A2A_SETTINGS_KEY]: { push: configs as never } };
          return { type: 'write', write: { set: { metadata, updatedAt: engine.now() } }, value: configs };
        },
        { busy: 'The conversation kept changing while its A2A push configs were being written.' },
      );
      return result.value;
    },
    audit: (inputs, values) => recordAudit(engine.store, inputs, values),
    erase: (input) => erasePerson(engine.store, { ...input, at: engine.now() }),
    auditLog: engine.store,
    delegation: {
      get: async (userId) => ({
        delegation: (await delegationOf(engine.store, userId, engine.now())) ?? null,
        holding: await heldBy(engine.store, userId, engine.now()),
      }),
      // Followers who read through a delegation check again at once (this process; others at their next event).
      set: async (userId, input) => {
        await setDelegation(engine.store, userId, input, engine.now());
        engine.bus.accessChanged();
      },
      clear: async (userId) => {
        await clearDelegation(engine.store, userId, engine.now());
        engine.bus.accessChanged();
      },
    },
  };
}

/** A channel's writes go through the engine as the channel's own (`via: 'channel'`). */
export function channelHost(engine: Engine): ChannelHost {
  return {
    store: engine.store,
    agents: engine.agents,
    // A thread shows a message at once, and dedupes by what is stored: a message while a turn runs is refused there (busyPolicy is for the API).
    send: (conversationId, content, options) =>
      sendMessage(engine, conversationId, content, { ...options, busyPolicy: 'reject', via: 'channel' }),
    settle: (conversationId, actionId, resolution, options) =>
      settleAction(engine, conversationId, actionId, resolution, { ...options, via: 'channel' }),
    async createConversation(input) {
      const record = newConversationRecord({ ...input, ownerId: null, createdAt: engine.now() });
      const result = await commitWrite(engine, { conversationId: record.id, create: record });
      if (!result.ok && result.reason !== 'exists')
        throw new HeedError('internal_error', 'The conversation could not be created.');
    },
    track: (promise) => engine.track(promise),
    logger: engine.logger,
  };
}
