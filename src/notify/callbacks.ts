import type { NotifyConfig } from '../config.js';
import { HeedError } from '../errors.js';
import { newId } from '../ids.js';
import { requestSettings } from '../protocol/request-conversation.js';
import type { Change, DeliveryEvent, NewDelivery } from '../store/store.js';
import type { ActionStatus, ConversationRecord } from '../types.js';

/*
 * The callback of a request made with `POST /api/requests`: once its action is settled, the settled
 * action is posted to its `callbackUrl` from the outbox, signed with `notify.callbackSecret`. A caller
 * picks the URL, so only the hosts the operator listed in `notify.callbackHosts` may receive one: the
 * URL's host is compared as written (nothing is resolved), and a redirect is a failed attempt.
 */

const settledEvent: Record<Exclude<ActionStatus, 'pending'>, DeliveryEvent> = {
  resolved: 'action.resolved',
  expired: 'action.expired',
  cancelled: 'action.cancelled',
};

/** True when `url` is http(s), has no user info, and its host (and port) is one of `hosts`. */
export function callbackAllowed(url: string, hosts: readonly string[]): boolean {
  const parsed = URL.parse(url);
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return false;
  if (parsed.username !== '' || parsed.password !== '') return false;
  const host = parsed.hostname.toLowerCase();
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  return hosts.some((entry) => {
    const allowed = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry.trim().toLowerCase());
    if (!allowed) return false;
    const allowedHost = URL.parse(`http://${allowed[1]}`)?.hostname;
    return allowedHost === host && (allowed[2] === undefined || String(Number(allowed[2])) === port);
  });
}

/** Refuses a callback URL the operator did not allow (400 `callback_not_allowed`), or one that could not be signed. */
export function checkCallbackUrl(url: string, config: NotifyConfig): void {
  const hosts = config.callbackHosts ?? [];
  if (!callbackAllowed(url, hosts)) {
    throw new HeedError(
      'callback_not_allowed',
      hosts.length === 0
        ? 'This server posts no callbacks: notify.callbackHosts lists no host.'
        : 'callbackUrl must be an http(s) URL whose host is listed in notify.callbackHosts.',
      { details: { field: 'callbackUrl' } },
    );
  }
  if (!config.callbackSecret) {
    throw new HeedError(
      'callback_not_allowed',
      'This server posts no callbacks: notify.callbackSecret is not set, so none could be signed.',
      { details: { field: 'callbackUrl' } },
    );
  }
}

/** The callback a change causes: one per action it settles in a request's conversation that has a `callbackUrl`. */
export function callbackDeliveries(
  change: Change,
  conversation: Pick<ConversationRecord, 'agent' | 'metadata'>,
  at: string,
): NewDelivery[] {
  const url = requestSettings(conversation).callbackUrl;
  if (url === undefined) return [];
  return (change.settle ?? []).map((x) => ({
    id: newId('msg'),
    event: settledEvent[x.status],
    actionId: x.id,
    target: { type: 'callback', url },
    createdAt: at,
  }));
}
