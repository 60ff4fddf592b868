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
  private readonly anyListeners = new Set<(conversationId: string | undefined) => void>();
  private readonly committedListeners = new Set<(events: EventRecord[]) => void>();
  private readonly accessListeners = new Set<() => void>();
  private watchers: Array<() => void> = [];

  publish(events: EventRecord[]): void {
    for (const listener of [...this.committedListeners]) {
      try {
        listener(events);
      } catch {
        // As for the others below: a listener never breaks the writer.
      }
    }
    if (this.anyListeners.size > 0)
      for (const id of new Set(events.map((event) => event.conversationId))) this.touched(id);
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
    this.touched(conversationId);
    for (const listener of [...(this.pokeListeners.get(conversationId) ?? [])]) listener(seq);
  }

  /** Notices from other processes may have been missed: every follower reads the store. */
  pokeAll(): void {
    this.touched(undefined);
    for (const set of [...this.pokeListeners.values()])
      for (const listener of [...set]) listener(Number.MAX_SAFE_INTEGER);
  }

  /**
   * Calls `listener` whenever any conversation may have changed (events published here or announced by
   * another process; undefined: notices may have been missed). The inbox stream watches them all.
   */
  onAny(listener: (conversationId: string | undefined) => void): () => void {
    this.watched();
    this.anyListeners.add(listener);
    return () => void this.anyListeners.delete(listener);
  }

  /**
   * Who may read what may have changed here without an event in any conversation (a delegation set or
   * ended): followers who read a conversation they do not own check their access again, and the inbox
   * streams look again.
   */
  accessChanged(): void {
    for (const listener of [...this.accessListeners]) {
      try {
        listener();
      } catch {
        // As above: a listener never breaks the writer.
      }
    }
    this.touched(undefined);
  }

  /** Calls `listener` on every `accessChanged()`. */
  onAccessChanged(listener: () => void): () => void {
    this.accessListeners.add(listener);
    return () => void this.accessListeners.delete(listener);
  }

  /** Calls `listener` with the events of every commit this process makes (not another process's): `/metrics` counts them. */
  onCommitted(listener: (events: EventRecord[]) => void): () => void {
    this.committedListeners.add(listener);
    return () => void this.committedListeners.delete(listener);
  }

  private touched(conversationId: string | undefined): void {
    for (const listener of [...this.anyListeners]) {
      try {
        listener(conversationId);
      } catch {
        // As above: a listener never breaks the writer.
      }
    }
  }

  onPoke(conversationId: string, listener: PokeListener): () => void {
    this.watched();
    return add(this.pokeListeners, conversationId, listener);
  }

  /**
   * Calls `watcher` once, when something first waits for other processes' events here (a follower's poke
   * listener or an `onAny` listener): the store's listener is started then, not before.
   */
  whenWatched(watcher: () => void): void {
    this.watchers.push(watcher);
  }

  private watched(): void {
    const watchers = this.watchers;
    this.watchers = [];
    for (const watcher of watchers) watcher();
  }

  /** Listeners registered now, for one conversation or in all (each open follower holds one of each kind). */
  listenerCount(conversationId?: string): number {
    let count = 0;
    for (const map of [this.listeners, this.pokeListeners]) {
      if (conversationId !== undefined) count += map.get(conversationId)?.size ?? 0;
      else for (const set of map.values()) count += set.size;
    }
    return count;
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
