import { childPendingActions, childrenOf } from './engine/child-actions.js';
import { parentOf } from './engine/children.js';
import { childRuns } from './engine/child-continue.js';
import { commitWrite } from './engine/transact.js';
import { inboxOf } from './engine/inbox.js';
import { listedOwner } from './engine/access.js';
import { joinedConversations } from './engine/participants.js';
import { kindOf } from './kinds/index.js';
import { questionResolutionFrom } from './kinds/question/shorthand.js';
import { cancelConversation } from './engine/cancel.js';
import { expireDue, type SweepReport } from './engine/lapse.js';
import { applyRetention } from './engine/retention.js';
import { extendAction, type ExtendOptions } from './engine/extend.js';
import { settleAction, type SettleOptions } from './engine/settle.js';
import type { ResolutionInput } from './protocol/resolution-input.js';
import { branchConversation } from './engine/branch.js';
import { intakeQuestions } from './engine/intake.js';
import type { TurnResult } from './engine/turn/run-turn.js';
import { sendMessage, type SendOptions } from './engine/send.js';
import { queuedTexts } from './engine/queue.js';
import { regenerateReply, type RegenerateOptions } from './engine/regenerate.js';
import type { Caller, ChannelWrite } from './caller.js';
import type { AgentConfig, HeedOptions } from './config.js';
import { checkOptions } from './config-schema.js';
import { defaults, Engine, newConversationRecord } from './engine/engine.js';
import { HeedError, must } from './errors.js';
import { channelHost, httpHooks, type HeedHooks } from './hooks.js';
import { followEvents, type Follow, type FollowFlow } from './engine/follow.js';
import { readEventsWithActions } from './engine/hydrate.js';
import { newId } from './ids.js';
import { consoleLogger, errorFields } from './logger.js';
import { openTracing } from './telemetry/otel.js';
import { startMcpServers } from './mcp/setup.js';
import { Notifier } from './notify/notifier.js';
import type { ChannelAdapter } from './channels/channel.js';
import { ChatChannel, type ChatChannelConfig } from './channels/chat-sdk/chat-channel.js';
import { chatPlatforms } from './channels/chat-sdk/platforms.js';
import { memoryStore } from './store/memory/memory-store.js';
import { guardStore } from './store/unavailable.js';
import type { AgentInfo, ConversationSnapshot } from './protocol/responses.js';
import { RESERVED_METADATA_PREFIX } from './protocol/request-conversation.js';
import type { ConversationRecord, EventRecord, JsonObject, RememberedTool } from './types.js';
import { actionView, conversationView, messageViews, type ActionView, type ConversationView } from './views.js';
import { heedRequests, type HeedRequests } from './heed-requests.js';
import { extended } from './objects.js';

export type { AgentInfo, ConversationSnapshot };

/** A pending action with shortcuts to answer it. */
export type PendingAction = ActionView & {
  /**
   * Answers it. Takes the resolution without its `type` (`{ decision: 'allow' }`, `{ answers }`, `{ output }`…);
   * for a question, also a bare value when it asks one question (`answer('window')`), the answers by id when it
   * asks several (`answer({ environment: 'staging', reason: 'Release 2.2' })`; left out = the default; keys that
   * name no question, as a posted form carries, are dropped), or nothing to confirm the defaults. With nothing,
   * an approval is approved and a URL request says the person opened the page (seed 004).
   */
  answer(
    resolution?: Omit<ResolutionInput, 'type'> | Record<string, unknown> | QuestionValue,
    options?: SettleOptions,
  ): Promise<TurnResult>;
  approve(
    options?: { remember?: boolean; approvedArgs?: Record<string, unknown>; comment?: string } & SettleOptions,
  ): Promise<TurnResult>;
  /**
   * Declines with a note the model reads: an approval is denied (`comment`; an object is then the call's
   * whole result), a question skipped (`note`: the agent carries on without answers), a client tool
   * answered with the note as its error, a URL request declined (it takes no note).
   */
  decline(note?: string | JsonObject, options?: SettleOptions): Promise<TurnResult>;
  skip(options?: SettleOptions): Promise<TurnResult>;
  dismiss(options?: SettleOptions): Promise<TurnResult>;
};

/** One question's answer as `answer` takes it bare: an option's value or label, a typed value, a list for a multiple choice. */
export type QuestionValue = string | number | boolean | Array<string | number | boolean>;

export interface CallerOption {
  caller?: Caller;
}

export interface Heed {
  readonly store: HeedOptions['store'];
  agents(): AgentInfo[];
  /** One agent as `agents()` lists it; 404 `not_found` for a name no agent has. */
  agent(name: string): AgentInfo;
  /**
   * Starts a conversation. `id` lets a client pick it (1–128 of `A–Z a–z 0–9 _ -`, e.g. an AI SDK chat id);
   * a taken id is a 400 `invalid_request` naming the field. Without it Heed makes one.
   */
  createConversation(input: {
    agent: string;
    id?: string;
    ownerId?: string | null;
    channel?: string | null;
    metadata?: JsonObject;
    caller?: Caller;
  }): Promise<ConversationView>;
  /** Newest first; `q` keeps those whose title or agent name contains it, ignoring case. */
  listConversations(
    filter?: { status?: ConversationRecord['status']; agent?: string; q?: string; limit?: number } & CallerOption,
  ): Promise<ConversationView[]>;
  conversation(id: string): ConversationHandle;
  /** Every pending action the caller may answer, across conversations, oldest first. */
  inbox(options?: CallerOption & { limit?: number; after?: { createdAt: string; id: string } }): Promise<ActionView[]>;
  /** Requests any backend can make (`POST /api/requests`): answered from the inbox and every surface, with no agent. */
  readonly requests: HeedRequests;
  /** Lapses due actions now and takes over stalled continuations; with `conversationId`, those of that conversation only. */
  expireDue(options?: { conversationId?: string }): Promise<SweepReport>;
  /** Resolves once the store is migrated and every MCP server is connected; rejects with the reason otherwise. */
  ready(): Promise<void>;
  /** Waits for running continuations, stops the sweep, closes MCP connections and the store. */
  close(): Promise<void>;
}

export interface ConversationHandle {
  readonly id: string;
  send(content: string, options?: SendOptions): Promise<TurnResult>;
  /**
   * Runs the reply to the last message again (the AI SDK's `regenerate`): the message is recorded again,
   * marked `regenerates`; the reply it replaces stays in the record but is no longer sent to the model.
   * Refused like a new message while a turn runs (409 `conversation_busy`) or a request waits (409 `action_pending`).
   */
  regenerate(options?: RegenerateOptions): Promise<TurnResult>;
  /**
   * The conversation with its messages. With `messages: { limit, before? }`, only that page of them (the
   * newest `limit` before the message `before`), and `hasEarlierMessages` when older ones exist.
   */
  get(options?: CallerOption & { messages?: { before?: string; limit: number } }): Promise<ConversationSnapshot>;
  /**
   * Every action of the conversation, pending first; a parent's pending ones include its children's (and
   * theirs), each with `via` (docs/concepts.md, Agents that call agents).
   */
  actions(options?: CallerOption): Promise<ActionView[]>;
  pendingActions(options?: CallerOption): Promise<PendingAction[]>;
  resolve(actionId: string, resolution: unknown, options?: SettleOptions): Promise<TurnResult>;
  /**
   * Moves a pending action's deadline to `minutes` from now (0: never lapses, where the agent allows it), by
   * whoever may answer it (docs/approvals.md, Reminders and extensions); the action as it now is.
   */
  extend(actionId: string, minutes: number, options?: ExtendOptions): Promise<ActionView>;
  cancel(options?: CallerOption): Promise<{ status: ConversationRecord['status']; cancelled: boolean }>;
  events(options?: CallerOption & { after?: number; limit?: number }): Promise<EventRecord[]>;
  /**
   * Follows the event log from `after` (default: from the start), stored backlog first, then live. With
   * `flow`, the backlog is read a page at a time as the receiver makes room, never all at once.
   */
  follow(
    listener: (event: EventRecord) => void,
    options?: CallerOption & {
      after?: number;
      flow?: FollowFlow;
      /**
       * Called once when the caller may no longer read the conversation while following (a delegation
       * ended, the action they read it for was answered): nothing more is delivered. Access is asked again
       * before each page of events and whenever a delegation changes.
       */
      onRefused?: (error: HeedError) => void;
    },
  ): Promise<Follow>;
  rememberedTools(options?: CallerOption): Promise<RememberedTool[]>;
  forgetTool(toolName: string, options?: CallerOption): Promise<void>;
  branch(options?: CallerOption & { fromMessageId?: string }): Promise<ConversationView>;
}

const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * A caller's metadata: small, since it is stored and sent back with every read of the conversation, and
 * free of the `heed:` keys where the server keeps what only it may write (A2A push configs, a request's
 * callback), which views hide and the server acts on.
 */
function checkMetadata(metadata: JsonObject | undefined, maxBytes: number): void {
  if (metadata === undefined || metadata === null) return;
  const reserved = Object.keys(metadata).find((key) => key.startsWith(RESERVED_METADATA_PREFIX));
  if (reserved !== undefined) {
    throw new HeedError(
      'invalid_request',
      `Metadata keys starting with "${RESERVED_METADATA_PREFIX}" are Heed's own; rename "${reserved.slice(0, 100)}".`,
      { details: { field: 'metadata', key: reserved.slice(0, 100) } },
    );
  }
  const bytes = Buffer.byteLength(JSON.stringify(metadata), 'utf8');
  if (bytes > maxBytes) {
    throw new HeedError(
      'metadata_too_large',
      `The conversation metadata is ${bytes} bytes of JSON; at most ${maxBytes} are allowed (limits.maxMetadataBytes).`,
      {
        details: { field: 'metadata', bytes, maxBytes },
      },
    );
  }
}

/** The engine behind each Heed; read through `engineOf`, never part of the public `Heed`. */
const engines = new WeakMap<Heed, Engine>();
const hooks = new WeakMap<Heed, HeedHooks>();

/** Internal, for tests inside the package: the engine behind a Heed. Not exported from the package's entry point. */
export function engineOf(heed: Heed): Engine {
  const engine = engines.get(heed);
  if (!engine) throw new HeedError('internal_error', 'This Heed was not made by createHeed.');
  return engine;
}

/** Internal: what the HTTP app needs beyond the public `Heed` (src/hooks.ts). Not exported from the package's entry point. */
export function hooksOf(heed: Heed): HeedHooks {
  const found = hooks.get(heed);
  if (!found) throw new HeedError('internal_error', 'This Heed was not made by createHeed.');
  return found;
}

/**
 * Creates a Heed: agents that can pause to ask, a store that keeps the pauses, and the sweep.
 *
 * @example
 * ```ts
 * const heed = createHeed({ agents: [{ name: 'support', model: openai('gpt-4.1-mini'), ask: true }] });
 * const { id } = await heed.createConversation({ agent: 'support', ownerId: 'alice' });
 * const turn = await heed.conversation(id).send('Please refund order 42.');
 * ```
 */
export function createHeed(options: HeedOptions): Heed {
  checkOptions(options);
  // Outage errors of any store become `store_unavailable` (503), wherever they are met.
  const store = guardStore(options.store ?? memoryStore());
  let notifier!: Notifier;
  // OpenTelemetry is loaded only when `telemetry` is set; until it is (and for good without it) spans are no-ops.
  const traces = openTracing(options.telemetry, options.logger ?? consoleLogger());
  // The outbox is one of the engine's parts, built over it (it reads its agents and clock).
  const engine = new Engine(options, store, {
    outbox: (built) => (notifier = new Notifier(built, options.notify, channelAdapters(built, options))),
    tracing: traces.tracing,
    children: childRuns,
  });
  for (const agent of options.agents) if (agent.intake) intakeQuestions(agent);
  const mcp = startMcpServers(engine);
  const ready = Promise.all([store.migrate(), mcp.ready, traces.ready])
    .then(() => notifier.startChannels())
    .then(() => notifier.start());
  // A store shared by several processes announces their events: followers here then read them from the store.
  // The listener starts with the first follower (a conversation's or the inbox's stream), so a process nobody
  // follows on holds no LISTEN connection, and the database wakes no listener for its commits. Events
  // committed before it listened are read once it does (pokeAll).
  let unlisten: (() => Promise<void>) | undefined;
  let listening: Promise<void> | undefined;
  engine.bus.whenWatched(() => {
    if (!store.listen || engine.closed) return;
    listening = ready.then(
      async () => {
        if (engine.closed) return;
        unlisten = await store
          .listen?.(
            (notice) => engine.bus.poke(notice.conversationId, notice.seq),
            () => engine.bus.pokeAll(),
          )
          .catch((error: unknown) => {
            // Without the listener, followers here see other instances' events only when they read again.
            engine.logger.error(
              errorFields(error),
              'Heed: the store listener could not start; events of other instances reach followers here late',
            );
            return undefined;
          });
        engine.bus.pokeAll();
      },
      () => undefined,
    ); // a failed start is reported by ready() and every use
  });
  let started = false;
  ready.then(() => (started = true)).catch(() => undefined); // the failure is reported by ready() (below)
  // Not swallowed: every use awaits `ready` and reports its failure (an MCP server that cannot be reached, say).
  ready.catch(() => undefined);
  const whenReady = async <T>(work: () => Promise<T>): Promise<T> => {
    await ready;
    return work();
  };

  const interval = options.sweepIntervalMs ?? defaults.sweepIntervalMs;
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> | undefined;
  const sweep = () => {
    // Retention runs after the lapses, so a conversation lapsed now is not a candidate in the same run.
    sweeping ??= whenReady(async () => {
      await expireDue(engine);
      await applyRetention(engine.store, options.retention, engine.now());
    })
      .catch((error: unknown) => {
        // A failed start is reported by `ready()`; any other failure is the sweep's own, tried again next interval.
        if (!started) return;
        engine.logger.error(errorFields(error), 'Heed: the sweep failed; it runs again at the next interval');
      })
      .finally(() => (sweeping = undefined));
    return sweeping;
  };
  if (interval > 0) {
    // sweep() logs its own failures; a failed start is reported by ready().
    ready.then(() => sweep()).catch(() => undefined);
    // sweep() logs its own failures.
    timer = setInterval(() => void sweep(), interval);
    timer.unref();
  }

  const conversation = (id: string): ConversationHandle => ({
    id,
    send: (content, sendOptions) => whenReady(() => sendMessage(engine, id, content, libraryWrite(sendOptions))),
    regenerate: (regenerateOptions) => whenReady(() => regenerateReply(engine, id, libraryWrite(regenerateOptions))),
    async get(callerOption = {}) {
      await ready;
      const page = callerOption.messages;
      // The whole conversation in one read; a page of it reads the conversation and its actions, then the page.
      const whole = await engine.readReadable(id, callerOption.caller, { actions: true, messages: !page });
      const record = whole.conversation;
      const actions = must(whole.actions, 'The conversation was read with its actions.');
      // One more than asked tells whether earlier messages exist.
      const read = page
        ? await store.listMessages(id, { before: page.before, limit: page.limit + 1 })
        : must(whole.messages, 'The conversation was read with its messages.');
      const earlier = page !== undefined && read.length > page.limit;
      const messages = earlier ? read.slice(1) : read;
      const pending = actions
        .filter((action) => action.status === 'pending')
        .map((action) => actionView(engine, action, record.agent));
      // A parent lists its children's pending actions too, each with `via` (src/engine/child-actions.ts).
      const all =
        whole.messages ?? (engine.agents.get(record.agent)?.agents?.length ? await store.listMessages(id) : []);
      pending.push(...(await childPendingActions(engine, record, all)));
      const family = await childrenOf(engine, record, all);
      const parent = parentOf(record);
      const snapshot: ConversationSnapshot = {
        conversation: {
          ...conversationView(record),
          ...(parent ? { parent: { conversationId: parent.conversationId, toolCallId: parent.toolCallId } } : {}),
          ...(family.length ? { children: family } : {}),
        },
        messages: messageViews(engine, record, messages, actions),
        runtime: { status: record.status, pendingActionIds: pending.map((action) => action.id) },
      };
      if (pending.length) snapshot.pendingActions = pending;
      if (record.queue?.length) snapshot.queuedMessages = await queuedTexts(engine, record);
      if (earlier) snapshot.hasEarlierMessages = true;
      return snapshot;
    },
    async actions(callerOption = {}) {
      await ready;
      const read = await engine.readReadable(id, callerOption.caller, { actions: true });
      const record = read.conversation;
      const actions = must(read.actions, 'The conversation was read with its actions.');
      const views = actions.map((action) => actionView(engine, action, record.agent));
      // Pending first: its own, then its children's (and theirs) with `via`, as `get` lists them; then the closed.
      return [
        ...views.filter((view) => view.status === 'pending'),
        ...(await childPendingActions(engine, record)),
        ...views.filter((view) => view.status !== 'pending'),
      ];
    },
    async pendingActions(callerOption = {}) {
      const all = await this.actions(callerOption);
      return all
        .filter((action) => action.status === 'pending')
        .map((view) =>
          withShortcuts(view, (resolution, settleOptions) =>
            this.resolve(view.id, resolution, { caller: callerOption.caller, ...settleOptions }),
          ),
        );
    },
    resolve: (actionId, resolution, settleOptions) =>
      whenReady(() => settleAction(engine, id, actionId, resolution, libraryWrite(settleOptions))),
    extend: (actionId, minutes, extendOptions) =>
      whenReady(() => extendAction(engine, id, actionId, minutes, libraryWrite(extendOptions))),
    cancel: (cancelOptions) => whenReady(() => cancelConversation(engine, id, libraryWrite(cancelOptions))),
    async events(eventOptions = {}) {
      await ready;
      await engine.readableConversation(id, eventOptions.caller);
      return readEventsWithActions(store, id, { after: eventOptions.after ?? 0, limit: eventOptions.limit });
    },
    async follow(listener, followOptions = {}) {
      await ready;
      const conversation = await engine.readableConversation(id, followOptions.caller);
      return followEvents(store, engine.bus, id, followOptions.after ?? 0, listener, {
        flow: followOptions.flow,
        recheck: engine.readerRecheck(conversation, followOptions.caller),
        onRefused: followOptions.onRefused,
      });
    },
    async rememberedTools(callerOption = {}) {
      await ready;
      await engine.visibleConversation(id, callerOption.caller);
      return store.listRememberedTools(id);
    },
    async forgetTool(toolName, callerOption = {}) {
      await ready;
      await engine.visibleConversation(id, callerOption.caller);
      if (!(await store.forgetTool(id, toolName))) {
        throw new HeedError('not_found', `"${toolName}" is not remembered in this conversation.`, {
          details: { toolName },
        });
      }
    },
    branch: (branchOptions = {}) =>
      whenReady(async () => conversationView(await branchConversation(engine, id, branchOptions))),
  });

  const heed: Heed = {
    store,
    agents: () => [...engine.agents.values()].map((agent) => agentInfo(engine, agent)),
    agent: (name) => agentInfo(engine, engine.agent(name)),
    createConversation: (input) =>
      whenReady(async () => {
        engine.agent(input.agent);
        if (input.id !== undefined && !CONVERSATION_ID.test(input.id)) {
          throw new HeedError('invalid_request', 'A conversation id is 1 to 128 letters, digits, "_" or "-".', {
            details: { field: 'id' },
          });
        }
        checkMetadata(input.metadata, engine.limits.maxMetadataBytes);
        const at = engine.now();
        const record = newConversationRecord({
          id: input.id ?? newId('c'),
          agent: input.agent,
          ownerId: input.caller ? input.caller.userId : (input.ownerId ?? null),
          channel: input.channel ?? null,
          metadata: input.metadata ?? null,
          createdAt: at,
        });
        // Waited on to reach the disk like any commit a caller is answered on: a client handed the id must find it.
        const result = await commitWrite(engine, { conversationId: record.id, create: record });
        if (!result.ok && result.reason === 'exists' && input.id !== undefined) {
          throw new HeedError('invalid_request', 'A conversation with that id already exists.', {
            details: { field: 'id', reason: 'exists' },
          });
        }
        if (!result.ok) throw new HeedError('internal_error', 'The conversation could not be created.');
        return conversationView(result.conversation);
      }),
    listConversations: (filter = {}) =>
      whenReady(async () => {
        // Who sees what in the list is the access policy's (src/engine/access.ts): an anonymous caller, nothing.
        const listed = listedOwner(filter.caller);
        if (!listed) return [];
        const search = filter.q?.trim() || undefined;
        const records = await store.listConversations({
          ...listed,
          status: filter.status,
          agent: filter.agent,
          search,
          limit: filter.limit,
        });
        // Besides their own, a signed-in person's list has the channels' conversations they took part in.
        const joined = filter.caller ? await joinedConversations(store, filter.caller, { ...filter, search }) : [];
        if (joined.length === 0) return records.map(conversationView);
        const seen = new Set(records.map((record) => record.id));
        return [...records, ...joined.filter((record) => !seen.has(record.id))]
          .sort((a, b) => (a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1))
          .slice(0, filter.limit ?? 50)
          .map(conversationView);
      }),
    conversation,
    inbox: (inboxOptions = {}) =>
      whenReady(() => inboxOf(engine, inboxOptions.caller, inboxOptions.limit ?? 50, inboxOptions.after)),
    requests: heedRequests(engine, notifier, whenReady, (metadata) =>
      checkMetadata(metadata, engine.limits.maxMetadataBytes),
    ),
    expireDue: (options) => whenReady(() => expireDue(engine, options)),
    ready: () => ready,
    async close() {
      if (timer) clearInterval(timer);
      // A channel's own socket first: what it already took is recorded while the engine still runs.
      await notifier.stopListening();
      engine.stop();
      await sweeping;
      // A turn that ends may start the one queued behind it: wait for those too.
      while (engine.inFlight.size > 0) await Promise.allSettled([...engine.inFlight]);
      // A failed start was reported by ready() and every use; closing goes on regardless.
      await ready.catch(() => undefined);
      await notifier.close();
      await listening;
      await unlisten?.();
      await mcp.close();
      await store.close();
      // Last: the spans of everything above are sent before it resolves.
      await traces.tracing.close();
    },
  };
  engines.set(heed, engine);
  hooks.set(heed, httpHooks(engine, notifier));
  return heed;
}

/** What a client may know of an agent: its name, description and what it can ask. */
function agentInfo(engine: Engine, agent: AgentConfig): AgentInfo {
  const tools = Object.values(agent.tools ?? {});
  // A handler or remote agent says what it can ask; Heed's own loop is read from its tools.
  const declared = agent.model ? undefined : agent.capabilities;
  return {
    name: agent.name,
    ...(agent.description ? { description: agent.description } : {}),
    capabilities: declared
      ? {
          toolApproval: declared.toolApproval ?? false,
          questions: declared.questions ?? false,
          intake: declared.intake ?? false,
          clientTools: declared.clientTools ?? false,
        }
      : {
          toolApproval:
            tools.some((entry) => entry.needsApproval) ||
            Object.values(agent.mcpServers ?? {}).some((server) => server.needsApproval),
          questions: Boolean(agent.ask || agent.intake),
          intake: Boolean(agent.intake),
          clientTools: tools.some((entry) => entry.client),
        },
    ...(engine.busyPolicy(agent) === 'queue' ? { busyPolicy: 'queue' as const } : {}),
  };
}

/** The chat workspaces of `channels` (docs/channels.md), each checked against the agents it names. */
function channelAdapters(engine: Engine, options: HeedOptions): ChannelAdapter[] {
  const adapters: ChannelAdapter[] = [];
  for (const [name, config] of Object.entries(options.channels ?? {})) {
    // `channels.state` is where Chat SDK keeps its state, not a platform.
    if (!config || name === 'state' || !('agent' in config)) continue;
    if (!engine.agents.has(config.agent)) {
      throw new HeedError(
        'invalid_config',
        `channels.${name}.agent names no agent ("${config.agent}"); the agents are ${[...engine.agents.keys()].map((agent) => `"${agent}"`).join(', ')}.`,
      );
    }
  }
  for (const [name, platform] of Object.entries(chatPlatforms)) {
    const entry = (options.channels as Record<string, ChatChannelConfig | undefined> | undefined)?.[name];
    if (!platform || !entry) continue;
    const config = platform.configOf ? platform.configOf(entry as never) : entry;
    adapters.push(
      new ChatChannel(
        channelHost(engine),
        platform,
        config,
        options.channels?.state,
        options.notify?.attemptTimeoutMs ?? defaults.attemptTimeoutMs,
      ),
    );
  }
  return adapters;
}

/** A write through the library API never counts as a channel's own, whatever a JavaScript caller passes. */
function libraryWrite<T extends object>(options: T | undefined): T & ChannelWrite {
  return extended(options ?? ({} as T), { via: undefined });
}

function withShortcuts(
  view: ActionView,
  resolve: (resolution: unknown, options?: SettleOptions) => Promise<TurnResult>,
): PendingAction {
  const type = view.kind;
  // The shortcuts before the view's fields, which never name one (src/objects.ts says why).
  return {
    // Async, so a value that cannot answer it is a rejected promise like every other refusal.
    answer: async (resolution, options) => {
      if (view.kind === 'question') return resolve(questionResolutionFrom(view.questions ?? [], resolution), options);
      // Seed 004: a kind whose answer takes no value (an approval, a page to visit) is answered by nothing.
      const agree = kindOf(type).agree;
      if (resolution === undefined && agree) return resolve(agree(), options);
      return resolve({ type, ...(resolution as object) }, options);
    },
    approve: ({ remember, approvedArgs, comment, ...options } = {}) =>
      resolve({ type, decision: 'allow', remember, approvedArgs, comment }, options),
    // Each kind's own decline; a kind without one gets an approval's deny, which its check refuses by name.
    decline: (note, options) =>
      resolve(kindOf(type).decline?.(note) ?? { type, decision: 'deny', comment: note }, options),
    skip: (options) => resolve({ type, skip: true }, options),
    dismiss: (options) => resolve({ type, dismiss: true }, options),
    ...view,
  };
}
