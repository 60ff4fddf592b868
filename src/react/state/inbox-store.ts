import type { HeedClient } from '../../client/index.js';
import type { ActionView } from '../../views.js';
import { toChatError, type ChatError } from './conversation-store.js';

export interface InboxState {
  status: 'loading' | 'ready' | 'error';
  /** Everything waiting on the caller, oldest first. */
  actions: ActionView[];
  error?: ChatError;
}

/** The caller's inbox, read now and again every `intervalMs` while started. */
export interface InboxStore {
  getState(): InboxState;
  subscribe(listener: () => void): () => void;
  start(): void;
  refresh(): Promise<void>;
  dispose(): void;
}

export function createInboxStore(client: HeedClient, options: { intervalMs?: number; maxItems?: number } = {}): InboxStore {
  const listeners = new Set<() => void>();
  const maxItems = options.maxItems ?? 500;
  let state: InboxState = { status: 'loading', actions: [] };
  let timer: ReturnType<typeof setInterval> | undefined;
  let disposed = false;
  let reading: Promise<void> | undefined;

  const set = (next: InboxState) => {
    state = next;
    for (const listener of listeners) listener();
  };

  function refresh(): Promise<void> {
    reading ??= (async () => {
      try {
        const actions: ActionView[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.inbox({ limit: 200, ...(cursor ? { cursor } : {}) });
          actions.push(...page.actions);
          cursor = page.nextCursor;
        } while (cursor && actions.length < maxItems);
        if (!disposed) set({ status: 'ready', actions });
      } catch (thrown) {
        if (!disposed) set({ ...state, status: state.status === 'loading' ? 'error' : state.status, error: toChatError(thrown) });
      }
    })().finally(() => {
      reading = undefined;
    });
    return reading;
  }

  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start() {
      if (timer || disposed) return;
      void refresh();
      timer = setInterval(() => void refresh(), options.intervalMs ?? 5000);
    },
    refresh,
    dispose() {
      disposed = true;
      clearInterval(timer);
      listeners.clear();
    },
  };
}
