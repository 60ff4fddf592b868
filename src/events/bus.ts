import type { EventRecord } from '../types.js';

type Listener = (event: EventRecord) => void;

/**
 * In-process fan-out of freshly committed events, keyed by conversation. A store shared by several
 * processes (PostgreSQL) feeds it from its notifications as well.
 */
export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();

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
    let set = this.listeners.get(conversationId);
    if (!set) {
      set = new Set();
      this.listeners.set(conversationId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(conversationId);
    };
  }
}
