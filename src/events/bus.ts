import type { EventRecord } from '../types.js';

type Listener = (event: EventRecord) => void;
type PokeListener = (seq: number) => void;

/**
 * In-process fan-out of freshly committed events, keyed by conversation. A store shared by several
 * processes (PostgreSQL) feeds it from its notifications as well.
 */
export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly pokeListeners = new Map<string, Set<PokeListener>>();

  publish(events: EventRecord[]): void {
    for (const event of events) {
      const set = this.listeners.get(event.conversationId);
      if (!set) continue;
      for (const listener of [...set]) {
        try {
          listener(event);
        } catch {
          // A listener that throws must not break the writer or the other listeners.
        }
      }
    }
  }

  on(conversationId: string, listener: Listener): () => void {
    return add(this.listeners, conversationId, listener);
  }

  /** The store holds events of this conversation up to `seq` that another process committed: followers read them. */
  poke(conversationId: string, seq: number): void {
    for (const listener of [...(this.pokeListeners.get(conversationId) ?? [])]) listener(seq);
  }

  /** Notices from other processes may have been missed: every follower reads the store. */
  pokeAll(): void {
    for (const set of [...this.pokeListeners.values()]) for (const listener of [...set]) listener(Number.MAX_SAFE_INTEGER);
  }

  onPoke(conversationId: string, listener: PokeListener): () => void {
    return add(this.pokeListeners, conversationId, listener);
  }
}

function add<T>(map: Map<string, Set<T>>, conversationId: string, listener: T): () => void {
  let set = map.get(conversationId);
  if (!set) {
    set = new Set();
    map.set(conversationId, set);
  }
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) map.delete(conversationId);
  };
}
