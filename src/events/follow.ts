import type { Store } from '../store/store.js';
import type { EventRecord } from '../types.js';
import type { EventBus } from './bus.js';
import { readEvents } from './hydrate.js';

export interface Follow {
  /** Stops delivery; safe to call twice. */
  close(): void;
}

/**
 * Delivers a conversation's events numbered after `after`: first the stored backlog, then live ones,
 * each exactly once and in order. A gap (an event seen live before an earlier one) is filled from the
 * store, so a follower never misses an event and never sees one twice.
 */
export function followEvents(
  store: Store,
  bus: EventBus,
  conversationId: string,
  after: number,
  listener: (event: EventRecord) => void,
): Follow {
  let last = after;
  let closed = false;
  let draining: Promise<void> | null = null;
  let wanted = false;

  const deliver = (event: EventRecord) => {
    if (closed || event.seq !== last + 1) return false;
    last = event.seq;
    listener(event);
    return true;
  };

  // Reads from the store until it has nothing newer; reruns if new events arrived meanwhile.
  const drain = () => {
    wanted = true;
    if (draining) return;
    draining = (async () => {
      while (wanted && !closed) {
        wanted = false;
        for (;;) {
          const page = await readEvents(store, conversationId, { after: last, limit: 500 });
          for (const event of page) deliver(event);
          if (page.length < 500 || closed) break;
        }
      }
    })()
      .catch(() => undefined)
      .finally(() => {
        draining = null;
        if (wanted && !closed) drain();
      });
  };

  const off = bus.on(conversationId, (event) => {
    if (event.seq <= last) return;
    if (!draining && deliver(event)) return;
    drain();
  });
  // Events another process committed arrive as a poke: read them from the store.
  const offPoke = bus.onPoke(conversationId, (seq) => {
    if (seq > last) drain();
  });
  drain();

  return {
    close() {
      closed = true;
      off();
      offPoke();
    },
  };
}
