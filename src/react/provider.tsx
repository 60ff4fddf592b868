import {
  createContext,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { createClient, type HeedClient } from '../client/index.js';
import { defaultClientTools, type ClientToolHandler, type ClientToolRegistry } from './state/client-tools.js';
import {
  createConversationStore,
  loadingState,
  ownsConversation,
  type ConversationState,
  type ConversationStore,
  type ConversationStoreOptions,
} from './state/conversation-store.js';
import { createInboxStore, type InboxState, type InboxStore } from './state/inbox-store.js';
import { ToolCardsContext, type ToolCardRegistry } from './components/tool-cards.js';

interface HeedContextValue {
  client: HeedClient;
  /** The signed-in user's id when known, so cards can say "you". */
  me: string | null;
  clientTools: ClientToolRegistry;
}

const HeedContext = createContext<HeedContextValue | null>(null);

export interface HeedProviderProps {
  /** A client from `heed/client`; or give `baseUrl` (default: this page's origin) and `token`. */
  client?: HeedClient;
  baseUrl?: string;
  token?: string;
  /** The signed-in user's id, when the app knows it. */
  me?: string | null;
  /** Where client tool handlers are looked up (default: those `registerClientTool` registered). */
  clientTools?: ClientToolRegistry;
  /** Where the cards registered per tool are looked up (default: those `registerToolCard` registered). */
  toolCards?: ToolCardRegistry;
  children?: ReactNode;
}

/**
 * Gives the components and hooks below it a Heed server to talk to.
 *
 * @example
 * ```tsx
 * <HeedProvider baseUrl="/" token={token}>
 *   <Chat conversationId={id} />
 * </HeedProvider>
 * ```
 */
export function HeedProvider({
  client,
  baseUrl,
  token,
  me = null,
  clientTools,
  toolCards,
  children,
}: HeedProviderProps) {
  const value = useMemo<HeedContextValue>(() => {
    const resolved =
      client ?? createClient({ baseUrl: baseUrl ?? globalThis.location?.origin ?? '', ...(token ? { token } : {}) });
    return { client: resolved, me, clientTools: clientTools ?? defaultClientTools };
  }, [client, baseUrl, token, me, clientTools]);
  const provided = <HeedContext.Provider value={value}>{children}</HeedContext.Provider>;
  return toolCards ? <ToolCardsContext.Provider value={toolCards}>{provided}</ToolCardsContext.Provider> : provided;
}

function useHeedContext(): HeedContextValue {
  const value = useContext(HeedContext);
  if (!value) throw new Error('Heed hooks need a <HeedProvider> above them.');
  return value;
}

/** The HTTP client of the nearest `HeedProvider`. */
export function useHeedClient(): HeedClient {
  return useHeedContext().client;
}

/** The signed-in user's id given to the nearest `HeedProvider`, if any. */
export function useHeedUser(): string | null {
  return useHeedContext().me;
}

export interface UseConversationResult extends ConversationState {
  send: ConversationStore['send'];
  answer: ConversationStore['answer'];
  cancel: ConversationStore['cancel'];
  refresh: ConversationStore['refresh'];
  loadEarlier: ConversationStore['loadEarlier'];
  clearError: ConversationStore['clearError'];
  runClientTool: ConversationStore['runClientTool'];
}

const idle = () => () => undefined;

/**
 * A conversation, live: its messages, what is being streamed, the requests waiting on a person, and
 * functions to send, answer and cancel. A thin hook over `createConversationStore`.
 *
 * @example
 * ```tsx
 * const { messages, pendingActions, send, answer } = useConversation(conversationId);
 * ```
 */
export function useConversation(
  conversationId: string,
  options: { runClientTools?: boolean; trustClientTools?: ConversationStoreOptions['trustClientTools'] } = {},
): UseConversationResult {
  const { client, clientTools, me } = useHeedContext();
  const [store, setStore] = useState<ConversationStore | null>(null);
  const runClientTools = options.runClientTools ?? true;
  // Read when a call arrives, so a new function (or `me` becoming known) does not restart the conversation.
  const trust = useRef({ check: options.trustClientTools, me });
  trust.current = { check: options.trustClientTools, me };
  useEffect(() => {
    const created = createConversationStore(client, conversationId, {
      clientTools,
      runClientTools,
      trustClientTools: (conversation) =>
        trust.current.check?.(conversation) ?? ownsConversation(conversation, trust.current.me),
    });
    created.start();
    setStore(created);
    return () => created.dispose();
  }, [client, conversationId, clientTools, runClientTools]);
  const current = store && store.getState().conversationId === conversationId ? store : null;
  const fallback = useMemo(() => loadingState(conversationId), [conversationId]);
  const state = useSyncExternalStore(
    current?.subscribe ?? idle,
    current?.getState ?? (() => fallback),
    current?.getState ?? (() => fallback),
  );
  const missing = async () => ({
    ok: false as const,
    error: { code: 'not_ready', message: 'The conversation is still loading.' },
  });
  return {
    ...state,
    send: current?.send ?? missing,
    answer: current?.answer ?? missing,
    cancel: current?.cancel ?? (async () => undefined),
    refresh: current?.refresh ?? (async () => undefined),
    loadEarlier: current?.loadEarlier ?? (async () => undefined),
    clearError: current?.clearError ?? (() => undefined),
    runClientTool: current?.runClientTool ?? (() => undefined),
  };
}

/**
 * Everything waiting on the signed-in person, across conversations, kept live by the inbox stream (read
 * again every `intervalMs` only where the server has no stream) and read again on focus.
 *
 * @example
 * ```tsx
 * const { actions } = useInbox();
 * return <p>{actions.length} waiting on you</p>;
 * ```
 */
export function useInbox(options: { intervalMs?: number } = {}): InboxState & { refresh: () => Promise<void> } {
  const { client } = useHeedContext();
  const [store, setStore] = useState<InboxStore | null>(null);
  useEffect(() => {
    const created = createInboxStore(client, { intervalMs: options.intervalMs });
    created.start();
    setStore(created);
    const onFocus = () => void created.refresh();
    globalThis.addEventListener?.('focus', onFocus);
    return () => {
      globalThis.removeEventListener?.('focus', onFocus);
      created.dispose();
    };
  }, [client, options.intervalMs]);
  const state = useSyncExternalStore(
    store?.subscribe ?? idle,
    store?.getState ?? (() => loadingInbox),
    store?.getState ?? (() => loadingInbox),
  );
  return { ...state, refresh: store?.refresh ?? (async () => undefined) };
}

const loadingInbox: InboxState = { status: 'loading', actions: [] };

/**
 * Registers a client tool handler while the component is mounted.
 *
 * @example
 * ```tsx
 * useClientTool('getLocation', async () => ({ city: await askBrowserForCity() }));
 * ```
 */
export function useClientTool(name: string, handler: ClientToolHandler): void {
  const { clientTools } = useHeedContext();
  useEffect(() => clientTools.register(name, handler), [clientTools, name, handler]);
}
