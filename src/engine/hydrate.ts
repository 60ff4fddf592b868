import type { Store } from '../store/store.js';
import type { ActionRecord, EventRecord } from '../types.js';
import { actionView, type ActionView } from '../views.js';
import { extended } from '../objects.js';

/**
 * `action.required` events are stored as a reference to the action (its request never changes), and
 * filled in with the action as it was asked when read, so the log does not hold each request twice.
 */
export function hydrateEvents(events: EventRecord[], actions: ActionRecord[]): EventRecord[] {
  if (!events.some(needsAction)) return events;
  const byId = new Map(actions.map((action) => [action.id, action]));
  return events.map((event): EventRecord => {
    if (event.type !== 'action.required' || event.data.action !== undefined) return event;
    const action = byId.get(event.data.actionId);
    return action ? { ...event, data: extended(event.data, { action: askedView(action) }) } : event;
  });
}

/** Reads a page of events and fills in the actions they refer to. */
export async function readEventsWithActions(
  store: Store,
  conversationId: string,
  options: { after?: number; limit?: number },
): Promise<EventRecord[]> {
  const events = await store.listEvents(conversationId, options);
  return events.some(needsAction) ? hydrateEvents(events, await store.listActions(conversationId)) : events;
}

function needsAction(event: EventRecord): boolean {
  return event.type === 'action.required' && event.data.action === undefined;
}

/** The action as it was when asked: pending, with no answer yet. */
function askedView(action: ActionRecord): ActionView {
  return actionView(undefined, {
    ...action,
    status: 'pending',
    resolution: null,
    resolvedBy: null,
    channel: null,
    resolvedAt: null,
    defaulted: null,
  });
}
