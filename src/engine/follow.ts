import type { HeedError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { EventRecord } from '../types.js';
import type { EventBus } from './event-bus.js';
import { readEventsWithActions } from './hydrate.js';

export interface Follow {
  /** Stops delivery; safe to call twice. */
  close(): void;
}

/** How a follower keeps pace with a receiver that reads slowly (a stream to a client). */
export interface FollowFlow {
  /** True while the receiver can take more events. */
  hasRoom(): boolean;
  /** Resolves once the receiver can take more, or is gone (else a closed follower waits on it for ever). */
  ready(): Promise<void>;
}

/**
 * For a follower whose access can end while it follows (a delegate, an approver): asks again whether it
 * may still read. Resolves with the refusal when it may not, undefined when it may; throws when it cannot tell
 * (the store is away), and then nothing is delivered until a later check passes.
 */
export type Recheck = () => Promise<HeedError | undefined>;

export interface FollowOptions {
  flow?: FollowFlow;
  /**
   * Asked before every page of events is delivered (after it was read, so each event delivered was
   * committed before a check that passed) and whenever the bus says access changed. When it refuses,
   * delivery stops for good and `onRefused` is called once.
   */
  recheck?: Recheck;
  onRefused?: (error: HeedError) => void;
}

/** Events read from the store at a time: what one follower holds in memory while it waits. */
const PAGE = 100;

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
  options: FollowOptions = {},
): Follow {
  const { flow, recheck } = options;
  let last = after;
  let closed = false;
  // Access changes announced, and how many of them the last passed check had seen.
  let accessChanges = 0;
  let checked = 0;
  let draining: Promise<void> | null = null;
  let wanted = false;
  // With a flow, the backlog is read a page at a time as the receiver takes it, never all at once.
  const blocked = () => flow !== undefined && !flow.hasRoom();
  const room = () => flow!.ready();

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
          if (blocked()) await room();
          if (closed) break;
          const page = await readEventsWithActions(store, conversationId, { after: last, limit: PAGE });
          if (recheck && (page.length > 0 || checked < accessChanges)) {
            const asked = accessChanges;
            const refused = await recheck();
            if (closed) break;
            if (refused) {
              end();
              options.onRefused?.(refused);
              break;
            }
            checked = asked;
          }
          for (const event of page) {
            if (blocked()) await room();
            if (closed) break;
            deliver(event);
          }
          if (page.length < PAGE || closed) break;
        }
      }
    })()
      // A read that failed (the store is away) is not the follower's end: the next poke or event drains again from `last`.
      .catch(() => undefined)
      .finally(() => {
        draining = null;
        if (wanted && !closed) drain();
      });
  };

  const off = bus.on(conversationId, (event) => {
    if (event.seq <= last) return;
    // A receiver that is behind gets this event from the store once it catches up, so nothing queues here.
    // A follower whose access can end gets every event through the store, after a check.
    if (!recheck && !draining && (!flow || flow.hasRoom()) && deliver(event)) return;
    drain();
  });
  // Events another process committed arrive as a poke: read them from the store.
  const offPoke = bus.onPoke(conversationId, (seq) => {
    if (seq > last) drain();
  });
  const offAccess = recheck
    ? bus.onAccessChanged(() => {
        accessChanges++;
        drain();
      })
    : () => undefined;
  const end = () => {
    closed = true;
    off();
    offPoke();
    offAccess();
  };
  drain();

  return { close: end };
}
