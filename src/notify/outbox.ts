import type { AgentConfig, EmailConfig, NotifyConfig, PushConfig, WebhookConfig } from '../config.js';
import { isGroupEntry } from '../groups.js';
import { newId } from '../ids.js';
import type { Change, DeliveryEvent, NewDelivery } from '../store/store.js';
import type { ActionRecord, ActionStatus, ConversationRecord } from '../types.js';
import type { ActionView } from '../views.js';
import { answerableByLink } from './links.js';

/** The webhooks and email in force for one agent: its own `notify` keys replace the server's. */
export interface AgentTargets {
  webhooks: WebhookConfig[];
  email?: EmailConfig;
  /** The server's Web Push (an agent's own `notify` has none). */
  push?: PushConfig;
}

export function targetsFor(notify: NotifyConfig | undefined, agent: AgentConfig | undefined): AgentTargets {
  const merged = { ...notify, ...agent?.notify };
  const name = agent?.name;
  return {
    webhooks: (merged.webhooks ?? []).filter(
      (hook) => !hook.agents || (name !== undefined && hook.agents.includes(name)),
    ),
    email: merged.email,
    ...(notify?.push ? { push: notify.push } : {}),
  };
}

export function hasTargets(targets: AgentTargets): boolean {
  return targets.webhooks.length > 0 || targets.email !== undefined || targets.push !== undefined;
}

/**
 * Whom a request waits on, as user ids or group entries: its approvers, else the conversation's owner
 * (none for an ownerless one); and the delegates standing in for them.
 */
export function peopleAsked(
  action: ActionRecord,
  ownerId: string | null,
  delegates: Map<string, string> | undefined,
): { waitsOn: string[]; delegates: Array<{ for: string; to: string }> } {
  const waitsOn =
    'approvers' in action.request && action.request.approvers?.length
      ? action.request.approvers
      : ownerId !== null
        ? [ownerId]
        : [];
  return {
    waitsOn,
    delegates: waitsOn.flatMap((id) => {
      const delegate = delegates?.get(id);
      return delegate !== undefined ? [{ for: id, to: delegate }] : [];
    }),
  };
}

const settledEvent: Record<Exclude<ActionStatus, 'pending'>, DeliveryEvent> = {
  resolved: 'action.resolved',
  expired: 'action.expired',
  cancelled: 'action.cancelled',
};

export interface OutboxContext {
  conversation: Pick<ConversationRecord, 'id' | 'agent' | 'ownerId'>;
  targets: AgentTargets;
  /** When the change happens. */
  at: string;
  /** The action as the API shows it (for `email.to`). */
  view: (action: ActionRecord) => ActionView;
  /** Approvals this change escalates (docs/approvals.md): notified like a new request. */
  escalated?: ActionRecord[];
  /** Actions this change sends a reminder of (`hitl.remind`): `action.reminder` to the request's own targets. */
  reminded?: ActionRecord[];
  /** Delegations in force, who delegated → their delegate (read only when mail or push is configured). */
  delegates?: Map<string, string>;
  /** The actions this change settles, as they were (read only when push is configured): their notifications are closed. */
  settled?: ActionRecord[];
}

/**
 * The notifications a change causes, computed from the change alone: an action it inserts as pending
 * is `action.required`; an action it settles is `action.resolved`, `action.expired` or `action.cancelled`
 * by its new status; a reminder the sweep sends is `action.reminder`, to the same people as the request. Actions inserted already closed (a branch's copies) notify nobody. One delivery per
 * webhook that wants the event, and one per email recipient of an action a person can answer.
 */
export function deliveriesFor(change: Change, context: OutboxContext): NewDelivery[] {
  const { targets, at } = context;
  const happened: { event: DeliveryEvent; action?: ActionRecord; actionId: string }[] = [];
  for (const action of change.actions ?? []) {
    if (action.status === 'pending' && !(change.settle ?? []).some((x) => x.id === action.id)) {
      happened.push({ event: 'action.required', action, actionId: action.id });
    }
  }
  for (const action of context.escalated ?? [])
    happened.push({ event: 'action.required', action, actionId: action.id });
  for (const action of context.reminded ?? []) happened.push({ event: 'action.reminder', action, actionId: action.id });
  for (const x of change.settle ?? [])
    happened.push({
      event: settledEvent[x.status],
      action: context.settled?.find((entry) => entry.id === x.id),
      actionId: x.id,
    });

  const out: NewDelivery[] = [];
  for (const { event, action, actionId } of happened) {
    for (const hook of targets.webhooks) {
      if (hook.events && !hook.events.includes(event)) continue;
      out.push({ id: newId('msg'), event, actionId, target: { type: 'webhook', url: hook.url }, createdAt: at });
    }
    // Mail goes to the people who answer: the request, and its reminders.
    const asks = event === 'action.required' || event === 'action.reminder';
    if (targets.email && asks && action && answerableByLink(action)) {
      const conversation = {
        id: context.conversation.id,
        agent: context.conversation.agent,
        ownerId: context.conversation.ownerId,
      };
      const { delegates } = peopleAsked(action, conversation.ownerId, context.delegates);
      const to = targets.email.to({ action: context.view(action), conversation, delegates });
      const recipients = [
        ...new Set((Array.isArray(to) ? to : to ? [to] : []).map((address) => address.trim()).filter(Boolean)),
      ];
      for (const address of recipients) {
        out.push({ id: newId('msg'), event, actionId, target: { type: 'email', to: address }, createdAt: at });
      }
    }
    // Push goes to the same people by user id (a group has no list of members to push to), and closes
    // their notification once the request is settled.
    if (targets.push && action && answerableByLink(action)) {
      const { waitsOn, delegates } = peopleAsked(action, context.conversation.ownerId, context.delegates);
      const people = new Set([...waitsOn, ...delegates.map((entry) => entry.to)].filter((id) => !isGroupEntry(id)));
      for (const person of people)
        out.push({ id: newId('msg'), event, actionId, target: { type: 'push', to: person }, createdAt: at });
    }
  }
  return out;
}
