import { readWholeInbox, type HeedClient } from '../../client/index.js';
import type { ActionView } from '../../views.js';
import { toChatError, type ChatError } from './conversation-store.js';

export interface InboxState {
  status: 'loading' | 'ready' | 'error';
  /**
   * The inbox stream: `connecting` until its first snapshot, `live` while open, `reconnecting` after it
   * was cut until it is back (the inbox is then whole again: the stream starts with a snapshot), and
   * `polling` where the server has no stream (read again every `intervalMs`).
   */
  connection?: 'connecting' | 'live' | 'reconnecting' | 'polling';
  /** Everything waiting on the caller, oldest first. */
  actions: ActionView[];
  error?: ChatError;
}

/**
 * The caller's inbox, kept live while started: it follows `GET /api/inbox/stream` (Server-Sent Events)
 * and applies what is added and removed. While the stream is cut, the inbox is read at each attempt to
 * reconnect (ever less often, up to every 30 s). Only when the server has no stream is it read again
 * every `intervalMs` instead.
 */
export interface InboxStore {
  getState(): InboxState;
  subscribe(listener: () => void): () => void;
  start(): void;
  refresh(): Promise<void>;
  dispose(): void;
}

/** Oldest first, as `GET /api/inbox` lists them. */
function inboxOrder(actions: Iterable<ActionView>): ActionView[] {
  return [...actions].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

export function createInboxStore(
  client: HeedClient,
  options: { intervalMs?: number; maxItems?: number } = {},
): InboxStore {
  const listeners = new Set<() => void>();
  const maxItems = options.maxItems ?? 500;
  let state: InboxState = { status: 'loading', connection: 'connecting', actions: [] };
  let timer: ReturnType<typeof setInterval> | undefined;
  let started = false;
  let disposed = false;
  let reading: Promise<void> | undefined;
  const following = new AbortController();

  const set = (next: InboxState) => {
    state = next;
    for (const listener of listeners) listener();
  };

  function refresh(): Promise<void> {
    reading ??= (async () => {
      try {
        const actions = await readWholeInbox(client, maxItems);
        if (!disposed) set({ ...state, status: 'ready', actions, error: undefined });
      } catch (thrown) {
        if (!disposed)
          set({ ...state, status: state.status === 'loading' ? 'error' : state.status, error: toChatError(thrown) });
      }
    })().finally(() => {
      reading = undefined;
    });
    return reading;
  }

  function poll() {
    if (timer || disposed) return;
    set({ ...state, connection: 'polling' });
    timer = setInterval(() => void refresh(), options.intervalMs ?? 5000);
  }

  /** One connection to the stream: a snapshot (`inbox.added` … `inbox.synced`), then changes as they happen. */
  async function followOnce(): Promise<void> {
    const current = new Map(state.actions.map((action) => [action.id, action]));
    const snapshot = new Set<string>();
    let synced = false;
    for await (const { event, data } of client.inboxEvents({ signal: following.signal })) {
      if (disposed) return;
      if (event === 'inbox.added') {
        const action = data as ActionView;
        current.set(action.id, action);
        if (!synced) snapshot.add(action.id);
      } else if (event === 'inbox.removed') {
        current.delete((data as { id: string }).id);
      } else if (event === 'inbox.synced') {
        // What was held from before the connection and not sent again has left the inbox meanwhile.
        for (const id of [...current.keys()]) if (!snapshot.has(id)) current.delete(id);
        synced = true;
      } else continue;
      if (synced)
        set({
          status: 'ready',
          connection: 'live',
          actions: inboxOrder(current.values()).slice(0, maxItems),
          error: undefined,
        });
    }
  }

  async function follow(): Promise<void> {
    let failures = 0;
    while (!disposed) {
      try {
        await followOnce();
        failures = 0;
        if (!disposed) set({ ...state, connection: 'reconnecting' });
      } catch (thrown) {
        if (disposed) return;
        // A server without the stream (older, or a proxy that refuses SSE): read the inbox now and then.
        if ((thrown as { status?: number }).status === 404) {
          void refresh();
          return poll();
        }
        // Cut, or not there (yet): try again, ever less often, reading the inbox meanwhile.
        if (state.connection !== 'connecting') set({ ...state, connection: 'reconnecting' });
        failures++;
        void refresh();
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 1000 * 2 ** failures)));
    }
  }

  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start() {
      if (started || disposed) return;
      started = true;
      void follow();
    },
    refresh,
    dispose() {
      disposed = true;
      following.abort();
      clearInterval(timer);
      listeners.clear();
    },
  };
}
