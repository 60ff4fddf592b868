import { HeedClientError, type HeedClient } from '../../client/index.js';
import type { ResolutionInput } from '../../protocol/resolution-input.js';
import type { QueuedMessageView } from '../../protocol/responses.js';
import type { EventRecord } from '../../types.js';
import type { ActionView, ConversationView, MessageView } from '../../views.js';
import { defaultClientTools, runClientTool, wasStartedHere, type ClientToolRegistry } from './client-tools.js';

/** An error as the UI shows it. */
export interface ChatError {
  code: string;
  message: string;
  status?: number;
  details?: Record<string, unknown>;
}

/** What happened to a client tool this page was asked to run. */
/**
 * How this page's handler for a client tool call is doing. `needs_confirmation`: the conversation is
 * not trusted to run page code on its own (see `trustClientTools`); the person runs it with
 * `runClientTool(actionId)` or tells the agent the page can't.
 */
export type ClientToolRun =
  | { state: 'running' }
  | { state: 'sent' }
  | { state: 'failed'; message: string }
  | { state: 'no_handler' }
  | { state: 'needs_confirmation' };

/** Everything a chat view renders, as one immutable snapshot. */
export interface ConversationState {
  conversationId: string;
  /** `loading` until the first snapshot arrives; `error` when it could not be read at all. */
  status: 'loading' | 'ready' | 'error';
  /**
   * The live event stream: `connecting` until it first opens, `live` while it is open, `reconnecting`
   * after it was cut (the server stopped, the network dropped) until it opens again; then the
   * conversation is read again, so nothing that happened meanwhile is missed.
   */
  connection: 'connecting' | 'live' | 'reconnecting';
  conversation?: ConversationView;
  messages: MessageView[];
  /** True when the conversation has older messages than the first in `messages`: `loadEarlier()` reads them. */
  hasEarlierMessages?: boolean;
  /** Requests waiting for an answer, oldest first (those answered from this page drop out at once). */
  pendingActions: ActionView[];
  /** Text of assistant messages still being written, in the order they started. */
  streaming: Array<{ messageId: string; text: string }>;
  /** Messages sent while a turn runs, waiting for it in this order (an agent with `busyPolicy: 'queue'`). */
  queued: QueuedMessageView[];
  /** True while the agent works on a turn (here or in another tab). */
  running: boolean;
  /** True while a message from this page is being sent. */
  sending: boolean;
  /** Action ids whose answer from this page is on its way. */
  submitting: string[];
  /** Client tools this page runs or ran, by action id. */
  clientTools: Record<string, ClientToolRun>;
  /**
   * Answers that lost to an earlier one (in another tab, say), by action id: who answered first and
   * how it ended. The action itself then shows as settled in `messages`.
   */
  answeredElsewhere: Record<string, AlreadyAnswered>;
  /** The last error of a send, an answer that failed for another reason, or a failed turn. */
  error?: ChatError;
}

/** Who answered first (a user id; absent when anonymous or not a person), how (`channel`), and how it ended. */
export interface AlreadyAnswered {
  resolvedBy?: string;
  /** Whom `resolvedBy` answered for, as their delegate. */
  answeredFor?: string;
  channel?: string;
  status?: string;
}

/** How an answer from this page came out. */
export type AnswerResult = { ok: true } | { ok: false; error: ChatError; alreadyAnswered?: AlreadyAnswered };

/** Chat state of one conversation, free of any UI library: subscribe, read the snapshot, act. */
export interface ConversationStore {
  getState(): ConversationState;
  subscribe(listener: () => void): () => void;
  /** Reads the conversation and follows its event log live (other tabs' answers included). */
  start(): void;
  /** Reads the conversation again now. */
  refresh(): Promise<void>;
  /** Reads the page of messages before the first one shown (the server sends the newest page first). */
  loadEarlier(): Promise<void>;
  /** Sends a user message; resolves once the server took it (the turn goes on live). */
  send(content: string): Promise<AnswerResult>;
  /** Answers an action; resolves once the server recorded it, or with what stopped it. */
  answer(actionId: string, resolution: ResolutionInput): Promise<AnswerResult>;
  /** Cancels an open pause or a running turn. */
  cancel(): Promise<void>;
  /** Runs this page's handler for a client tool call that waits for the person's go-ahead (`needs_confirmation`). */
  runClientTool(actionId: string): void;
  clearError(): void;
  /** Stops following and any client tool still running. */
  dispose(): void;
}

export interface ConversationStoreOptions {
  /** Where client tool handlers are looked up (default: the ones `registerClientTool` registered). */
  clientTools?: ClientToolRegistry;
  /** Run client tool handlers when a call arrives (subject to `trustClientTools`). Default true. */
  runClientTools?: boolean;
  /**
   * Whether client tools run in this conversation without asking the person first. A page's handlers
   * read what only the page has (a selection, a form), and an ownerless conversation is open to anyone
   * with its id: a link to someone else's would otherwise send them that. Default (`ownsConversation`):
   * the conversation has an owner and it is `me` (when `me` is known; the server shows an owned
   * conversation only to its owner), or it is ownerless and this page started it
   * (`rememberStartedConversation`). Otherwise the call waits as `needs_confirmation`.
   */
  trustClientTools?: (conversation: ConversationView) => boolean;
  /** The signed-in user id, for the default `trustClientTools`. */
  me?: string | null;
}

/** The default `trustClientTools`: the viewer's own conversation, or an ownerless one this page started. */
export function ownsConversation(conversation: ConversationView, me?: string | null): boolean {
  if (conversation.ownerId === null) return wasStartedHere(conversation.id);
  return me === undefined || me === null || conversation.ownerId === me;
}

/** Events after which the stored conversation has changed shape (a message, an action, a turn's end). */
const RELOAD_ON = new Set<string>([
  'message.created',
  'message.queued',
  'message.dropped',
  'turn.started',
  'tool.result',
  'action.required',
  'action.resolved',
  // A vote or an escalation changes who a pending approval waits on (docs/approvals.md).
  'action.voted',
  'action.escalated',
  // A new deadline (docs/approvals.md, Reminders and extensions).
  'action.extended',
  'turn.paused',
  'turn.completed',
  'turn.cancelled',
  'turn.failed',
]);

export function toChatError(thrown: unknown): ChatError {
  if (HeedClientError.isInstance(thrown)) {
    return {
      code: thrown.code,
      message: thrown.message,
      status: thrown.status,
      ...(thrown.details ? { details: thrown.details } : {}),
    };
  }
  if (thrown instanceof Error)
    return { code: 'network_error', message: `The server could not be reached: ${thrown.message}` };
  return { code: 'error', message: String(thrown) };
}

/** A conversation's state before its first read. */
export function loadingState(conversationId: string): ConversationState {
  return {
    conversationId,
    status: 'loading',
    connection: 'connecting',
    messages: [],
    pendingActions: [],
    streaming: [],
    queued: [],
    running: false,
    sending: false,
    submitting: [],
    clientTools: {},
    answeredElsewhere: {},
  };
}

/**
 * @example
 * ```tsx
 * const store = createConversationStore(client, conversationId);
 * const stop = store.subscribe(() => render(store.getState()));
 * ```
 */
export function createConversationStore(
  client: HeedClient,
  conversationId: string,
  options: ConversationStoreOptions = {},
): ConversationStore {
  const clientTools = options.clientTools ?? defaultClientTools;
  const runTools = options.runClientTools ?? true;
  const trusted =
    options.trustClientTools ?? ((conversation: ConversationView) => ownsConversation(conversation, options.me));
  // Calls the person said to run though the conversation is not trusted.
  const confirmedTools = new Set<string>();
  const listeners = new Set<() => void>();
  const lifetime = new AbortController();
  // Answered from this page and not yet seen settled in a snapshot: hidden from pendingActions meanwhile.
  const answeredHere = new Set<string>();
  const startedTools = new Set<string>();
  let stored: ActionView[] = [];
  let started = false;
  /** Server time of the conversation's last write when first read. */
  let firstSeen: string | undefined;
  /** Failed turns' records already shown (or dismissed): a later read does not show them again. */
  const failuresShown = new Set<string>();
  let state: ConversationState = loadingState(conversationId);

  function set(patch: Partial<ConversationState>): void {
    state = { ...state, ...patch };
    for (const listener of listeners) listener();
  }

  const visiblePending = () => stored.filter((action) => !answeredHere.has(action.id));

  // Messages read with loadEarlier, oldest first, and whether there are older ones still.
  let earlier: MessageView[] = [];
  let earlierMore = false;
  async function loadEarlier(): Promise<void> {
    const first = state.messages[0];
    if (!first || !state.hasEarlierMessages) return;
    const page = await client.getConversation(conversationId, { before: first.id });
    if (lifetime.signal.aborted) return;
    earlier = [...page.messages, ...earlier];
    earlierMore = page.hasEarlierMessages === true;
    set({ messages: [...page.messages, ...state.messages], hasEarlierMessages: earlierMore || undefined });
  }

  let followFrom: number | undefined;
  async function load(): Promise<void> {
    const snapshot = await client.getConversation(conversationId);
    if (lifetime.signal.aborted) return;
    firstSeen ??= snapshot.conversation.updatedAt;
    followFrom ??= snapshot.conversation.lastEventSeq;
    stored = snapshot.pendingActions ?? [];
    for (const id of [...answeredHere]) if (!stored.some((action) => action.id === id)) answeredHere.delete(id);
    const known = new Set(snapshot.messages.map((message) => message.id));
    // Older pages the person chose to read stay shown before the newest page.
    const older = earlier.filter((message) => !known.has(message.id));
    // A turn that failed is recorded on the conversation's last message: shown once, after a reload too.
    const last = snapshot.messages.at(-1);
    const failed = last?.role === 'assistant' ? last.metadata?.failed : undefined;
    let failure: Partial<ConversationState> = {};
    if (last && failed && !failuresShown.has(last.id)) {
      failuresShown.add(last.id);
      if (!state.error) failure = { error: { code: failed.code, message: `The agent stopped: ${failed.message}` } };
    }
    set({
      ...failure,
      status: 'ready',
      conversation: snapshot.conversation,
      messages: older.length ? [...older, ...snapshot.messages] : snapshot.messages,
      hasEarlierMessages: (older.length ? earlierMore : snapshot.hasEarlierMessages === true) || undefined,
      pendingActions: visiblePending(),
      streaming: state.streaming.filter((entry) => !known.has(entry.messageId)),
      queued: snapshot.queuedMessages ?? [],
      running: snapshot.conversation.status === 'running',
      // The server answered: an error that said it could not be reached is over.
      ...(state.error?.code === 'network_error' ? { error: undefined } : {}),
    });
    runPendingClientTools();
  }

  // One read at a time; calls made meanwhile fold into one more read after it.
  let reading: Promise<void> | undefined;
  let readAgain = false;
  function refresh(): Promise<void> {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      do {
        readAgain = false;
        try {
          await load();
        } catch (thrown) {
          if (lifetime.signal.aborted) return;
          const error = toChatError(thrown);
          set(state.status === 'loading' ? { status: 'error', error } : { error });
        }
      } while (readAgain && !lifetime.signal.aborted);
    })().finally(() => {
      reading = undefined;
    });
    return reading;
  }

  function onEvent(event: EventRecord): void {
    if (event.type === 'text.delta') {
      const { messageId, delta } = event.data;
      if (!messageId || state.messages.some((message) => message.id === messageId)) return;
      const existing = state.streaming.find((entry) => entry.messageId === messageId);
      const streaming = existing
        ? state.streaming.map((entry) =>
            entry.messageId === messageId ? { messageId, text: entry.text + delta } : entry,
          )
        : [...state.streaming, { messageId, text: delta }];
      set({ streaming, running: true });
      return;
    }
    // Older failures replayed from the log are history; the latest write being a failure is news.
    if (event.type === 'turn.failed' && (!firstSeen || event.at >= firstSeen)) {
      const failure: Partial<typeof event.data.error> = event.data.error ?? {};
      const message = typeof failure.message === 'string' ? failure.message : 'The turn failed.';
      set({
        error: {
          code: typeof failure.code === 'string' ? failure.code : 'turn_failed',
          message: `The agent stopped: ${message}`,
        },
      });
    }
    // A queued message that will not run after all (a request came first, or the turn was cancelled): say which and why.
    if (event.type === 'message.dropped' && (!firstSeen || event.at >= firstSeen)) {
      const text = state.queued.find((entry) => entry.id === event.data.messageId)?.text;
      const why = event.data.error?.message ?? 'It was dropped.';
      set({
        error: {
          code: event.data.error?.code ?? 'message_dropped',
          message: `${text ? `Your message “${text}” was not sent. ` : 'A queued message was not sent. '}${why}`,
        },
      });
    }
    if (RELOAD_ON.has(event.type)) void refresh();
  }

  async function follow(): Promise<void> {
    try {
      // The snapshot already holds everything up to its last event: follow only what comes after.
      const onConnection = (connection: 'open' | 'lost') => {
        if (connection === 'lost') return set({ connection: 'reconnecting' });
        // Back after a cut: read the conversation again (the stream resumes where it stopped, but a
        // text being streamed when the cut came is only whole in the stored message).
        if (state.connection === 'reconnecting') void refresh();
        set({ connection: 'live' });
      };
      for await (const event of client.follow(conversationId, {
        after: followFrom ?? 0,
        signal: lifetime.signal,
        retryMs: 1000,
        onConnection,
      }))
        onEvent(event);
    } catch (thrown) {
      if (!lifetime.signal.aborted) set({ error: toChatError(thrown) });
    }
  }

  function runPendingClientTools(): void {
    if (!runTools) return;
    for (const action of state.pendingActions) {
      if (action.kind !== 'client_tool' || startedTools.has(action.id)) continue;
      const handler = clientTools.find(action);
      if (!handler) {
        if (!state.clientTools[action.id])
          set({ clientTools: { ...state.clientTools, [action.id]: { state: 'no_handler' } } });
        continue;
      }
      if (!confirmedTools.has(action.id) && !(state.conversation && trusted(state.conversation))) {
        if (!state.clientTools[action.id])
          set({ clientTools: { ...state.clientTools, [action.id]: { state: 'needs_confirmation' } } });
        continue;
      }
      startedTools.add(action.id);
      set({ clientTools: { ...state.clientTools, [action.id]: { state: 'running' } } });
      void (async () => {
        const outcome = await runClientTool(handler, action, lifetime.signal);
        if (lifetime.signal.aborted) return;
        const result = await answer(action.id, outcome);
        const run: ClientToolRun =
          result.ok || result.alreadyAnswered ? { state: 'sent' } : { state: 'failed', message: result.error.message };
        set({ clientTools: { ...state.clientTools, [action.id]: run } });
      })();
    }
  }

  async function answer(actionId: string, resolution: ResolutionInput): Promise<AnswerResult> {
    set({ submitting: [...state.submitting, actionId], error: undefined });
    try {
      // The answer's first event means it was recorded; the rest of the turn arrives through the log.
      for await (const part of client.answerStream(conversationId, actionId, resolution, { signal: lifetime.signal })) {
        if (part.type === 'event' || part.type === 'done') break;
      }
      answeredHere.add(actionId);
      set({ pendingActions: visiblePending() });
      return { ok: true };
    } catch (thrown) {
      const error = toChatError(thrown);
      if (error.code === 'action_not_pending' || error.code === 'action_expired') {
        const details = error.details ?? {};
        const alreadyAnswered = {
          ...(typeof details.resolvedBy === 'string' ? { resolvedBy: details.resolvedBy } : {}),
          ...(typeof details.answeredFor === 'string' ? { answeredFor: details.answeredFor } : {}),
          ...(typeof details.channel === 'string' ? { channel: details.channel } : {}),
          ...(typeof details.status === 'string'
            ? { status: details.status }
            : { status: error.code === 'action_expired' ? 'expired' : undefined }),
        };
        set({ answeredElsewhere: { ...state.answeredElsewhere, [actionId]: alreadyAnswered } });
        return { ok: false, error, alreadyAnswered };
      }
      return { ok: false, error };
    } finally {
      set({ submitting: state.submitting.filter((id) => id !== actionId) });
      void refresh();
    }
  }

  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start() {
      if (started || lifetime.signal.aborted) return;
      started = true;
      // Read first, then follow: the replayed backlog then only confirms what the snapshot holds.
      void refresh().then(() => {
        if (!lifetime.signal.aborted) void follow();
      });
    },
    refresh,
    loadEarlier,
    async send(content) {
      set({ sending: true, error: undefined });
      try {
        let queued = false;
        for await (const part of client.sendStream(conversationId, content, { signal: lifetime.signal })) {
          queued = part.type === 'done' && part.result.status === 'queued';
          if (part.type === 'event' || part.type === 'done') break;
        }
        // A queued message waits for the running turn; the refresh below shows it in `queued`.
        if (!queued) set({ running: true });
        return { ok: true };
      } catch (thrown) {
        const error = toChatError(thrown);
        set({ error });
        return { ok: false, error };
      } finally {
        set({ sending: false });
        void refresh();
      }
    },
    answer,
    async cancel() {
      try {
        await client.cancel(conversationId);
      } catch (thrown) {
        set({ error: toChatError(thrown) });
      }
      await refresh();
    },
    clearError: () => set({ error: undefined }),
    runClientTool(actionId) {
      if (state.clientTools[actionId]?.state !== 'needs_confirmation') return;
      confirmedTools.add(actionId);
      runPendingClientTools();
    },
    dispose() {
      lifetime.abort();
      listeners.clear();
    },
  };
}
