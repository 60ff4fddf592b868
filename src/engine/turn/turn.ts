import { commitWrite } from '../transact.js';
import type { Caller } from '../../caller.js';
import type { AgentConfig } from '../../config.js';
import type { Engine } from '../engine.js';
import { newId } from '../../ids.js';
import { actionView, type ActionView } from '../../views.js';
import type { Change, ConversationPatch, NewEvent } from '../../store/store.js';
import { newEvent, type EventData, type EventType } from '../../protocol/events.js';
import { toolResultWrites, type LoggedOutput } from '../tool-result.js';
import { endTurn, type NextTurn } from '../queue.js';
import { releaseLiveCalls } from '../withdraw.js';
import type {
  ActionRecord,
  ConversationRecord,
  JsonValue,
  MessageMetadata,
  MessagePart,
  MessageRecord,
  RememberedTool,
  ToolOutput,
  TurnWarning,
} from '../../types.js';
import { eventToolOutput } from './tool-output.js';
import { kindOf, type KindName } from '../../kinds/index.js';
import { extended } from '../../objects.js';

/** Thrown inside a turn whose claim on the conversation was taken away (a cancel, or a takeover). */
export class TurnInterrupted extends Error {
  constructor() {
    super('The turn was cancelled or taken over.');
  }
}

type Pending = Required<Pick<Change, 'messages' | 'actions' | 'events'>> & { set: ConversationPatch };

/**
 * One run of the agent loop on one conversation, holding the claim (lease) on it. Writes are gathered
 * and committed together at the points where they must be durable: before a tool runs, after it
 * returns, when the turn pauses or ends. Every commit is compare-and-set on the conversation version.
 */
export class Turn {
  readonly created: MessageRecord[] = [];
  readonly warnings: TurnWarning[] = [];
  readonly abort = new AbortController();
  private pending: Pending = emptyPending();
  private writing: Promise<unknown> = Promise.resolve();
  private leaseTimer: NodeJS.Timeout | undefined;
  private actionsCache: ActionRecord[] | undefined;
  /** Set when the write that ended this turn started the next queued message's turn (src/engine/queue.ts). */
  next: NextTurn | undefined;
  /** Set by a pause on child conversations: looked at once the turn ended (a child may have ended meanwhile). */
  afterPause: (() => Promise<unknown>) | undefined;
  private failed: { error: unknown } | undefined;
  /** How many messages the conversation held when the turn began (its own start at this position). */
  readonly startPosition: number;

  constructor(
    readonly engine: Engine,
    readonly agent: AgentConfig,
    public conversation: ConversationRecord,
    readonly messages: MessageRecord[],
    readonly caller: Caller | null,
    readonly interactive: boolean,
    readonly leaseOwner: string,
    actions?: ActionRecord[],
    private rememberedCache?: RememberedTool[],
  ) {
    this.actionsCache = actions;
    this.startPosition = messages.length;
  }

  /**
   * Whether this turn may raise requests of `kind` from the model's calls, and so offers it the tools
   * that raise them (the ask tool, client tools): only where a person can answer them (seed 000). A
   * one-shot turn (`interactive: false`) raises none; a chat thread's, none its thread cannot answer.
   */
  offers(kind: KindName): boolean {
    return this.interactive && this.answerableHere(kind);
  }

  /** Whether a person can answer a request of `kind` where this conversation lives: a chat thread answers only some. */
  answerableHere(kind: KindName): boolean {
    return !this.conversation.channel || kindOf(kind).answeredInThreads !== false;
  }

  startLeaseRenewal(): void {
    const every = Math.max(50, Math.floor(this.engine.leaseMs / 3));
    this.leaseTimer = setInterval(() => {
      this.set({ leaseExpiresAt: this.engine.leaseUntil() });
      // Ignored here on purpose: a failed flush stops the turn, and the turn's next awaited flush throws the same error.
      this.flush().catch(() => undefined);
    }, every);
    this.leaseTimer.unref();
  }

  stopLeaseRenewal(): void {
    if (this.leaseTimer) clearInterval(this.leaseTimer);
  }

  event<T extends EventType>(type: T, data: EventData<T>): void {
    this.pending.events.push(newEvent(type, this.engine.now(), data));
  }

  set(patch: ConversationPatch): void {
    Object.assign(this.pending.set, patch);
  }

  addActions(actions: ActionRecord[]): void {
    this.pending.actions.push(...actions);
    this.actionsCache?.push(...actions);
  }

  addMessage(
    role: MessageRecord['role'],
    parts: MessagePart[],
    metadata: MessageMetadata | null = null,
    id = newId('m'),
  ): MessageRecord {
    const message: MessageRecord = {
      id,
      conversationId: this.conversation.id,
      position: this.messages.length,
      role,
      parts,
      metadata,
      createdAt: this.engine.now(),
    };
    return this.keepMessage(message);
  }

  private keepMessage(message: MessageRecord): MessageRecord {
    this.messages.push(message);
    this.created.push(message);
    this.pending.messages.push(message);
    return message;
  }

  /**
   * Records a tool's result as a tool message, with a `tool.result` event; `kept` is what its message keeps
   * besides (the arguments a person approved, notes the model reads after it, a warning).
   */
  addToolResult(
    call: { toolCallId: string; toolName: string },
    output: ToolOutput,
    logged: LoggedOutput = eventToolOutput(output),
    kept: { approvedArgs?: JsonValue; notes?: string[]; warnings?: TurnWarning[]; isError?: true } = {},
  ): void {
    const { message, event } = toolResultWrites({
      conversationId: this.conversation.id,
      position: this.messages.length,
      at: this.engine.now(),
      call,
      output,
      logged,
      ...kept,
    });
    this.keepMessage(message);
    this.pending.events.push(event);
  }

  view(action: ActionRecord): ActionView {
    return actionView(this.engine, action, this.conversation.agent);
  }

  /** All actions of the conversation, loaded once per turn. */
  async actions(): Promise<ActionRecord[]> {
    if (!this.actionsCache) this.actionsCache = await this.engine.store.listActions(this.conversation.id);
    return this.actionsCache;
  }

  /** The tools remembered as approved in this conversation, loaded once per turn. */
  async rememberedTools(): Promise<RememberedTool[]> {
    this.rememberedCache ??= await this.engine.store.listRememberedTools(this.conversation.id);
    return this.rememberedCache;
  }

  /**
   * Why the turn's writes stopped, once one failed: its claim was lost (`TurnInterrupted`) or the store
   * failed (`store_unavailable`). Every flush after that throws it.
   */
  get failure(): unknown {
    return this.failed?.error;
  }

  /**
   * Commits what has been gathered. Serialized: a lease renewal never races a step's write. A flush
   * takes whatever is pending when its turn comes, so one queued earlier (text deltas, a lease renewal)
   * may carry a later step's writes; if its commit fails, those writes are not dropped and the turn stops:
   * every later flush throws the same error. So a pause is offered only once its own commit (or one
   * that carried it) succeeded. `waitForFlush: false` is for a commit this turn makes durable itself before
   * anything is answered or done on it (`Change.waitForFlush`, docs/guarantees.md).
   */
  flush(options: { waitForFlush?: false } = {}): Promise<void> {
    const run = this.writing.then(() => this.commitPending(options.waitForFlush));
    // The chain goes on past a failure: `run` carries it to this caller, and commitPending refuses every later write.
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async commitPending(waitForFlush?: false): Promise<void> {
    if (this.failed) throw this.failed.error;
    const pending = this.pending;
    if (
      pending.messages.length === 0 &&
      pending.actions.length === 0 &&
      pending.events.length === 0 &&
      Object.keys(pending.set).length === 0
    ) {
      return;
    }
    this.pending = emptyPending();
    try {
      for (;;) {
        // The write that ends the turn also starts (or drops) what was queued meanwhile, read as of this attempt.
        const end = await endTurn(
          this.engine,
          this.conversation,
          {
            conversationId: this.conversation.id,
            expectVersion: this.conversation.version,
            set: extended(pending.set, { updatedAt: this.engine.now() }),
            messages: pending.messages,
            actions: pending.actions,
            events: pending.events as NewEvent[],
            ...(waitForFlush === false ? { waitForFlush } : {}),
          },
          { messages: this.messages, actions: () => this.actions() },
        );
        const result = await commitWrite(this.engine, end.change);
        if (result.ok) {
          this.conversation = result.conversation;
          if (end.next) this.next = end.next;
          if (end.closed.length > 0) {
            releaseLiveCalls(this.engine, end.closed);
            this.warnings.push({
              code: 'pause_closed_by_queued_message',
              message:
                'A message sent while this turn ran closed its request (pendingActionPolicy "cancel"); its turn runs next.',
            });
          }
          return;
        }
        // Someone else wrote. Carry on only if the turn still holds its claim.
        const current = await this.engine.store.getConversation(this.conversation.id);
        if (!current || current.status !== 'running' || current.leaseOwner !== this.leaseOwner)
          throw new TurnInterrupted();
        this.conversation = current;
      }
    } catch (error) {
      // The writes stay, ahead of whatever was gathered since, and the turn stops: what is stored is
      // what a takeover or a recovery goes on from, and nothing here is offered as if it were stored.
      this.pending = joinPending(pending, this.pending);
      this.failed = { error };
      this.abort.abort();
      throw error;
    }
  }
}

function joinPending(first: Pending, then: Pending): Pending {
  return {
    set: { ...first.set, ...then.set },
    messages: [...first.messages, ...then.messages],
    actions: [...first.actions, ...then.actions],
    events: [...first.events, ...then.events],
  };
}

function emptyPending(): Pending {
  return { set: {}, messages: [], actions: [], events: [] };
}
