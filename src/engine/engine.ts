import { consoleLogger, type Logger } from '../logger.js';
import { noTracing, type Tracing } from '../telemetry/tracing.js';
import type { AgentConfig, BusyPolicy, HeedOptions, HitlConfig, Limits } from '../config.js';
import { escalationDue } from '../kinds/approval-policy.js';
import { heldBy } from './delegation.js';
import { conversationNotFound, mayRead, mayReadWithoutHook, mayWriteAsOwner, readByParticipants } from './access.js';
import { participates } from './participants.js';
import { rootOf } from './children.js';
import { HeedError } from '../errors.js';
import { defaults, hitlSetting, type AgentHitl } from '../config-schema.js';
import { EventBus } from './event-bus.js';
import type { Recheck } from './follow.js';
import { checkAgentGraph, childTools } from './children.js';
import { holdsRequest, REQUESTS_AGENT } from '../protocol/request-conversation.js';
import type { Caller } from '../caller.js';
import type { HeedTool } from '../tool.js';
import type { LiveCall } from './turn/live-call.js';
import type { Change, ConversationParts, ConversationRead, NewDelivery, Store } from '../store/store.js';
import { iso } from '../store/times.js';
import type { ActionRecord, ConversationRecord, EventRecord, MessageRecord } from '../types.js';

export { defaults } from '../config-schema.js';
export { conversationNotFound } from './access.js';

/** What the notifications a change causes are (src/notify/notifier.ts), seen from the engine. */
export interface Outbox {
  /** Whether anything is configured to be reached; `deliveriesFor` is asked only while it is. */
  readonly active: boolean;
  /** The deliveries to write with `change`; `known` is what the runner already read (no second read then). */
  deliveriesFor(
    change: Change,
    known: { conversation?: ConversationRecord; actions?: ActionRecord[] },
  ): Promise<NewDelivery[]>;
  /** Deliveries were written: look for them now rather than at the next poll. */
  wake(): void;
}

/** The parts an engine is built with beside its config and store. */
export interface EngineParts {
  /** Builds the outbox over the new engine; none: changes cause no notifications. */
  outbox?: (engine: Engine) => Outbox;
  /** The clock; default the config's `now`, else the system clock. */
  clock?: () => Date;
  /** Where spans go (`telemetry`, src/telemetry/); none: traces off. */
  tracing?: Tracing;
  /** How child conversations run and tell their parents (src/engine/child-continue.ts); none: agents call no agents. */
  children?: (engine: Engine) => ChildRuns;
}

/**
 * What the turn loop needs from above it to run agents that call agents (src/engine/child-continue.ts),
 * handed in so the loop does not import the modules that start turns.
 */
export interface ChildRuns {
  /** Runs the first turn of a child conversation just written with its claim. */
  runChild(conversation: ConversationRecord, leaseOwner: string, messages: MessageRecord[]): Promise<unknown>;
  /** Claims and runs a parent's continuation once its children have ended; nothing otherwise. */
  continueParent(parentId: string): Promise<unknown>;
  /** After any turn of a child: its pause is told in the parent's log, its end continues the parent. */
  afterChildTurn(
    child: ConversationRecord,
    status: 'completed' | 'requires_action' | 'cancelled' | 'failed' | 'queued',
  ): Promise<void>;
}

/** Shared state and small helpers every part of a running Heed uses. */
export class Engine {
  readonly store: Store;
  readonly bus = new EventBus();
  /** The agents by name, each with the server-wide `tools` and `ask` it does not set itself. */
  readonly agents = new Map<string, AgentConfig>();
  /** The config's root `tools`, offered to every agent (an agent's own tool of the same name wins). */
  readonly sharedTools: Readonly<Record<string, HeedTool>>;
  readonly hitl: HitlConfig;
  /** The engine's limits; the stream limits belong to the HTTP layer (createApp's `streams`). */
  readonly limits: Required<Omit<Limits, 'maxTokensPerConversation' | 'streamsPerCaller' | 'streamQueueBytes'>> &
    Pick<Limits, 'maxTokensPerConversation'>;
  readonly pendingActionPolicy: 'reject' | 'cancel';
  private readonly busyPolicyDefault: BusyPolicy;
  readonly leaseMs: number;
  readonly clock: () => Date;
  /** Where background failures are reported (the `logger` option). */
  readonly logger: Logger;
  /** Spans of turns, model calls, tools, pauses, answers and deliveries (`telemetry`); a no-op while off. */
  readonly tracing: Tracing;
  /** Turns running in this process, by conversation id, so a cancel can stop them at once. */
  readonly running = new Map<string, AbortController>();
  /** Tool calls kept running in this process while they wait for an answer (ctx.askLive), by tool call id. */
  readonly liveCalls = new Map<string, LiveCall>();
  /** The notifications each change causes, and the deliverer to wake after writing them (given when the engine is built). */
  readonly outbox?: Outbox;
  /** Continuations started in this process and not yet finished (awaited on close). */
  readonly inFlight = new Set<Promise<unknown>>();
  /** Turns cut off by a store outage, waiting here for the store to answer again (start.ts), by conversation id. */
  readonly resumes = new Map<string, NodeJS.Timeout>();
  /**
   * Conversations this process just created empty (no message, action or remembered tool), as the store
   * returned them, by id: the first transaction on one decides from this instead of reading it back
   * (src/engine/transact.ts). Taken once; any other commit on the conversation drops it; at most 256.
   */
  readonly created = new Map<string, ConversationRecord>();
  /** How child conversations run (EngineParts.children); undefined: no agent calls another. */
  readonly children?: ChildRuns;
  /** Set by `close()`: nothing new is carried on. */
  closed = false;

  constructor(options: HeedOptions, store: Store, parts: EngineParts = {}) {
    this.store = store;
    this.sharedTools = options.tools ?? {};
    for (const agent of options.agents) {
      if (this.agents.has(agent.name)) throw new HeedError('invalid_config', `Two agents are named "${agent.name}".`);
      if (agent.name === REQUESTS_AGENT) {
        throw new HeedError(
          'invalid_config',
          `No agent may be named "${REQUESTS_AGENT}": it names the conversations of requests made with POST /api/requests.`,
        );
      }
      this.agents.set(agent.name, withServerWide(agent, options));
    }
    checkAgentGraph(this.agents);
    // Each agent that calls agents is offered one `agent_<name>` tool per agent it names (children.ts).
    for (const agent of this.agents.values()) {
      if (agent.agents?.length)
        this.agents.set(agent.name, { ...agent, tools: { ...childTools(agent, this.agents), ...agent.tools } });
    }
    this.hitl = options.hitl ?? {};
    this.limits = {
      agentDepth: options.limits?.agentDepth ?? defaults.agentDepth,
      childrenPerTurn: options.limits?.childrenPerTurn ?? defaults.childrenPerTurn,
      maxStateBytes: options.limits?.maxStateBytes ?? defaults.maxStateBytes,
      clientToolOutputBytes: options.limits?.clientToolOutputBytes ?? defaults.clientToolOutputBytes,
      maxTokensPerConversation: options.limits?.maxTokensPerConversation,
      maxMetadataBytes: options.limits?.maxMetadataBytes ?? defaults.maxMetadataBytes,
      maxMessagesPerConversation: options.limits?.maxMessagesPerConversation ?? defaults.maxMessagesPerConversation,
      maxBranchBytes: options.limits?.maxBranchBytes ?? defaults.maxBranchBytes,
      conversationsPerMinute: options.limits?.conversationsPerMinute ?? defaults.conversationsPerMinute,
      maxQueuedMessages: options.limits?.maxQueuedMessages ?? defaults.maxQueuedMessages,
      mcpWaitingPerCaller: options.limits?.mcpWaitingPerCaller ?? defaults.mcpWaitingPerCaller,
    };
    this.pendingActionPolicy = options.pendingActionPolicy ?? defaults.pendingActionPolicy;
    this.busyPolicyDefault = options.busyPolicy ?? defaults.busyPolicy;
    this.leaseMs = options.leaseMs ?? defaults.leaseMs;
    this.clock = parts.clock ?? options.now ?? (() => new Date());
    this.logger = options.logger ?? consoleLogger();
    this.tracing = parts.tracing ?? noTracing;
    this.children = parts.children?.(this);
    // Last: the outbox is built over the finished engine (it reads its agents, clock and logger).
    this.outbox = parts.outbox?.(this);
  }

  now(): string {
    // Through the stores' formatter, which remembers its last answer: a commit asks the time many times in one millisecond.
    return iso(this.clock().getTime());
  }

  /**
   * The agent that runs in this conversation; refused for one that holds a request made with
   * `POST /api/requests`, where no agent runs (so nothing starts a turn there).
   */
  agentOf(conversation: ConversationRecord): AgentConfig {
    if (holdsRequest(conversation)) {
      throw new HeedError(
        'invalid_request',
        'This conversation holds a request made with POST /api/requests: no agent runs in it, so it takes no messages.',
        { details: { conversationId: conversation.id } },
      );
    }
    return this.agent(conversation.agent);
  }

  agent(name: string): AgentConfig {
    const agent = this.agents.get(name);
    if (!agent) throw new HeedError('not_found', `There is no agent named "${name}".`, { details: { agent: name } });
    return agent;
  }

  /** What a message sent while a turn runs does under this agent: its own `busyPolicy`, else the server's. */
  busyPolicy(agent: AgentConfig | undefined): BusyPolicy {
    return agent?.busyPolicy ?? this.busyPolicyDefault;
  }

  /** `hitl.<key>` under this agent: its own, else the server's, else the default (config-schema.ts). */
  setting<K extends keyof AgentHitl>(agent: AgentConfig | undefined, key: K) {
    return hitlSetting(agent?.hitl, this.hitl, key);
  }

  /**
   * The reminders of a deadline set now (docs/notifications.md): the times still ahead, earliest first;
   * a reminder whose time has already passed (a deadline nearer than it) is not planned.
   */
  reminderTimes(agent: AgentConfig | undefined, expiresAt: string | null): { remindAt?: string[] } {
    if (expiresAt === null) return {};
    const now = this.clock().getTime();
    const deadline = Date.parse(expiresAt);
    const times = [...new Set(this.setting(agent, 'remind').beforeMinutes)]
      .map((minutes) => deadline - minutes * 60_000)
      .filter((time) => time > now)
      .sort((a, b) => a - b)
      .map((time) => new Date(time).toISOString());
    return times.length > 0 ? { remindAt: times } : {};
  }

  expiresAfterMinutes(minutes: number | undefined): string | null {
    if (!minutes || minutes <= 0) return null;
    return new Date(this.clock().getTime() + minutes * 60_000).toISOString();
  }

  leaseUntil(): string {
    return new Date(this.clock().getTime() + this.leaseMs).toISOString();
  }

  budgetLeft(conversation: ConversationRecord): boolean {
    const max = this.limits.maxTokensPerConversation;
    return max === undefined || conversation.tokensUsed < max;
  }

  budgetError(conversation: ConversationRecord): HeedError {
    return new HeedError(
      'budget_reached',
      'This conversation has used up its token budget, so the agent cannot run again.',
      {
        details: { tokensUsed: conversation.tokensUsed, maxTokens: this.limits.maxTokensPerConversation ?? null },
      },
    );
  }

  /**
   * Loads a conversation the caller may write to as its owner (src/engine/access.ts, `mayWriteAsOwner`).
   * Someone else's conversation is reported as not found, so its existence does not leak. A call without a
   * caller acts as the owner.
   */
  async visibleConversation(id: string, caller: Caller | undefined): Promise<ConversationRecord> {
    return (await this.readVisible(id, caller, {})).conversation;
  }

  /** `visibleConversation` with the parts asked for, read together (store.readConversation). */
  async readVisible(id: string, caller: Caller | undefined, parts: ConversationParts): Promise<ConversationRead> {
    const read = await this.store.readConversation(id, parts);
    if (!read || !mayWriteAsOwner(caller, read.conversation)) throw conversationNotFound(id);
    return read;
  }

  /** Loads a conversation the caller may read (src/engine/access.ts, `mayRead`); 404 otherwise. */
  async readableConversation(id: string, caller: Caller | undefined): Promise<ConversationRecord> {
    return (await this.readReadable(id, caller, {})).conversation;
  }

  /** `readableConversation` with the parts asked for, read together (store.readConversation). */
  async readReadable(id: string, caller: Caller | undefined, parts: ConversationParts): Promise<ConversationRead> {
    const read = await this.store.readConversation(id, parts);
    if (!read) throw conversationNotFound(id);
    // A child agent's conversation lives in its lead's thread: the lead's participants read it.
    const participant =
      readByParticipants(caller, read.conversation) &&
      (await participates(this.store, (await rootOf(this.store, read.conversation)).id, caller!));
    // Before reading its actions: the owner and admins read it whatever it holds.
    if (mayReadWithoutHook(caller, read.conversation, [], [], participant)) return read;
    const actions = caller?.userId ? (read.actions ?? (await this.store.listActions(id))) : [];
    // Whom they stand for is read only when nothing in it names them.
    if (mayReadWithoutHook(caller, read.conversation, actions, [], participant)) return read;
    const standsFor = (await heldBy(this.store, caller?.userId, this.now())).map((held) => held.from);
    if (!(await mayRead(this, caller, read.conversation, actions, standsFor, participant)))
      throw conversationNotFound(id);
    return read;
  }

  /**
   * For a follower of the conversation: how to ask again whether the caller may still read it (the same
   * rule as `readReadable`, resolving with its refusal), or undefined when their access cannot end while they
   * follow (its owner, an ownerless one's holder, an admin, a call without a caller). A delegate's or an
   * approver's can: the delegation ends, the action they read it for is answered.
   */
  readerRecheck(conversation: ConversationRecord, caller: Caller | undefined): Recheck | undefined {
    const stillSignedIn = caller?.stillSignedIn;
    const signedOut = async () =>
      stillSignedIn && !(await stillSignedIn())
        ? new HeedError('unauthorized', 'The session this stream was opened with has ended: sign in again.')
        : undefined;
    if (mayReadWithoutHook(caller, conversation, [], [])) return stillSignedIn ? signedOut : undefined;
    return async () => {
      const ended = await signedOut();
      if (ended) return ended;
      try {
        await this.readReadable(conversation.id, caller, {});
        return undefined;
      } catch (thrown) {
        if (HeedError.isInstance(thrown) && thrown.code === 'not_found') return thrown;
        throw thrown;
      }
    };
  }

  /** Stops carrying on turns that wait for the store (called first by `close()`). */
  stop(): void {
    this.closed = true;
    for (const timer of this.resumes.values()) clearTimeout(timer);
    this.resumes.clear();
  }

  /** Runs a detached promise to completion, keeping track of it so `close()` can wait. */
  track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    promise.then(
      () => this.inFlight.delete(promise),
      () => this.inFlight.delete(promise),
    );
    return promise;
  }
}

/**
 * An agent with what the config sets for every agent: the root `tools` it has no tool of the same name
 * for (after its own), and the root `ask` unless it sets `ask` itself.
 */
function withServerWide(agent: AgentConfig, options: Pick<HeedOptions, 'tools' | 'ask'>): AgentConfig {
  const shared = Object.entries(options.tools ?? {}).filter(([name]) => !Object.hasOwn(agent.tools ?? {}, name));
  const ask = agent.ask ?? options.ask;
  if (shared.length === 0 && ask === agent.ask) return agent;
  return {
    ...agent,
    ...(shared.length > 0 ? { tools: { ...agent.tools, ...Object.fromEntries(shared) } } : {}),
    ...(ask !== undefined ? { ask } : {}),
  };
}

/** A conversation as it starts: idle, version 0, nothing spent, asked or claimed yet. */
export function newConversationRecord(
  fields: Pick<ConversationRecord, 'id' | 'agent' | 'ownerId' | 'channel' | 'metadata' | 'createdAt'> & {
    intakeDone?: boolean;
  },
): ConversationRecord {
  // The fields after the defaults, which they do not name (src/objects.ts says why).
  return {
    status: 'idle',
    version: 0,
    updatedAt: fields.createdAt,
    actionDueAt: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    tokensUsed: 0,
    lastEventSeq: 0,
    ...fields,
    intakeDone: fields.intakeDone ?? false,
  };
}

/** The earliest time the sweep has work among actions still open (a lapse, an escalation or a reminder); null if none. */
export function earliestDue(actions: ActionRecord[]): string | null {
  let due: string | null = null;
  for (const action of actions) {
    if (action.status !== 'pending') continue;
    for (const at of [action.expiresAt, escalationDue(action), action.remindAt?.[0]])
      if (at && (due === null || at < due)) due = at;
  }
  return due;
}

export type { EventRecord };
