import { createECDH, createHash } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import type webPush from 'web-push';
import type { PushConfig } from '../config.js';
import { HeedError } from '../errors.js';
import { requireOptional } from '../optional-dependency.js';
import type { Store } from '../store/store.js';
import { callbackAllowed } from './callbacks.js';

/*
 * Web Push (docs/notifications.md, Push): the browsers and phones a person turned on in the console, kept
 * as the store's scoped values (one scope per person, keyed by a hash of the endpoint, plus one index
 * from endpoint to person so a device belongs to one person at a time), the VAPID keys, and the one
 * request a push is.
 */

/** A browser's push subscription as `PushSubscription.toJSON()` gives it. */
export interface PushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** A stored subscription: the browser's, and when it was turned on. */
export interface StoredSubscription extends PushSubscription {
  createdAt: string;
}

/** The part of the store push keeps its subscriptions and key in. */
export type PushValues = Pick<Store, 'listValues' | 'putValues' | 'deleteValues' | 'swapValue' | 'secret'>;

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const scopeOf = (person: string) => `push-subscriptions:${person}`;
const ENDPOINTS = 'push-endpoints';
/** Who holds an endpoint, as the index keeps it: JSON, so erasure finds the person in it (docs/operating.md). */
const holderValue = (person: string) => JSON.stringify(person);

/** What erasing a person removes of their devices: their subscriptions, and the index rows naming them. */
export function pushValuesOf(userId: string): { valuePrefixes: string[]; valueScopes: string[] } {
  return { valuePrefixes: [ENDPOINTS], valueScopes: [scopeOf(userId)] };
}
const keyOf = (endpoint: string) => createHash('sha256').update(endpoint).digest('hex');

/** web-push, loaded when `notify.push` is configured (not at `import 'heed'`). */
export function webPushLibrary(): typeof webPush {
  return requireOptional<typeof webPush>('web-push', 'Web Push (notify.push)');
}

/**
 * The VAPID keys: the configured pair, else a P-256 key derived from a random secret made once and kept in
 * the store (`Store.secret`), so every process on one store signs with the same key and browsers'
 * subscriptions outlive a restart.
 */
export async function vapidKeys(config: PushConfig, store: PushValues): Promise<VapidKeys> {
  if (config.vapid) return config.vapid;
  let seed = createHash('sha256')
    .update(await store.secret('push-vapid'))
    .digest();
  const ecdh = createECDH('prime256v1');
  // A hash is a valid P-256 private key unless it is zero or past the curve's order (about 1 in 2^32): hash again.
  for (;;) {
    try {
      ecdh.setPrivateKey(seed);
      break;
    } catch {
      seed = createHash('sha256').update(seed).digest();
    }
  }
  return { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: seed.toString('base64url') };
}

// Addresses no push service has: loopback, private, link-local, carrier-grade NAT, unique-local and the like.
const privateRanges = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 3],
] as const)
  privateRanges.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['::ffff:0:0', 96],
] as const)
  privateRanges.addSubnet(network, prefix, 'ipv6');

const privateNames = /(^|\.)(localhost|local|internal|lan|home|arpa|test|invalid)$/;

/**
 * True when a push endpoint may be posted to: https on a public address (the host as written: an IP
 * literal outside the private ranges, or a dotted name that is not a local one), or a `host:port` listed in
 * `allowEndpoints` (there plain http too).
 */
export function pushEndpointAllowed(endpoint: string, allowEndpoints: readonly string[]): boolean {
  if (callbackAllowed(endpoint, allowEndpoints)) return true;
  const url = URL.parse(endpoint);
  if (!url || url.protocol !== 'https:' || url.username !== '' || url.password !== '') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const family = isIP(host);
  if (family !== 0) return !privateRanges.check(host, family === 4 ? 'ipv4' : 'ipv6');
  return host.includes('.') && !privateNames.test(host.replace(/\.$/, ''));
}

/** Refuses an endpoint push may not go to: 400 `push_endpoint_not_allowed`. */
export function checkPushEndpoint(endpoint: string, config: PushConfig): void {
  if (!pushEndpointAllowed(endpoint, config.allowEndpoints ?? []))
    throw new HeedError(
      'push_endpoint_not_allowed',
      'A push endpoint must be an https URL on a public address (or a host:port listed in notify.push.allowEndpoints).',
      { details: { field: 'body.endpoint' } },
    );
}

/** The person's subscriptions, oldest first. */
export async function listSubscriptions(store: PushValues, person: string): Promise<StoredSubscription[]> {
  const rows = await store.listValues(scopeOf(person));
  return rows
    .map((row) => JSON.parse(row.value) as StoredSubscription)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** How many devices one person may have pushed to: past it, the oldest is let go. */
export const MAX_SUBSCRIPTIONS = 20;

/**
 * Stores a subscription for a person; the same endpoint again replaces it, whoever held it before. A
 * person past `MAX_SUBSCRIPTIONS` loses their oldest (each push goes to every one of them).
 */
export async function saveSubscription(
  store: PushValues,
  person: string,
  subscription: PushSubscription,
  at: string,
): Promise<void> {
  const key = keyOf(subscription.endpoint);
  const held = (await store.listValues(ENDPOINTS)).find((row) => row.key === key)?.value;
  const holder = held === undefined ? undefined : (JSON.parse(held) as string);
  // One device, one person: a browser signed in as someone else now is no longer the old one's.
  if (holder !== undefined && holder !== person) await store.deleteValues(scopeOf(holder), [key]);
  // Stamps only grow per person, so "the oldest" is always one device even within a millisecond.
  const latest = (await listSubscriptions(store, person)).at(-1)?.createdAt;
  const createdAt = latest !== undefined && latest >= at ? new Date(Date.parse(latest) + 1).toISOString() : at;
  const stored: StoredSubscription = { endpoint: subscription.endpoint, keys: subscription.keys, createdAt };
  await store.putValues([
    { scope: scopeOf(person), key, value: JSON.stringify(stored) },
    { scope: ENDPOINTS, key, value: holderValue(person) },
  ]);
  const all = await listSubscriptions(store, person);
  for (const old of all.slice(0, Math.max(0, all.length - MAX_SUBSCRIPTIONS)))
    await removeSubscription(store, person, old.endpoint);
}

/** Removes a person's subscription; false when they had none with that endpoint. */
export async function removeSubscription(store: PushValues, person: string, endpoint: string): Promise<boolean> {
  const key = keyOf(endpoint);
  const had = (await store.listValues(scopeOf(person))).some((row) => row.key === key);
  if (!had) return false;
  await store.deleteValues(scopeOf(person), [key]);
  // The index is only dropped while it still names this person (a newer holder keeps it).
  await store.swapValue(ENDPOINTS, key, holderValue(person), null);
  return true;
}

/** How one push went: sent, gone for good (404 or 410: the subscription is removed), or failed (tried again). */
export type PushOutcome = 'sent' | 'gone' | { failed: string };

/**
 * Posts one encrypted push (RFC 8291, aes128gcm) with VAPID (RFC 8292) to a subscription's endpoint. A
 * redirect is a failure: the endpoint was checked, wherever it redirects was not.
 */
export async function sendPush(input: {
  subscription: PushSubscription;
  payload: string;
  keys: VapidKeys;
  subject: string;
  /** Pushes with the same topic replace each other while they wait at the push service. */
  topic: string;
  ttlSeconds: number;
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<PushOutcome> {
  const details = webPushLibrary().generateRequestDetails(input.subscription, input.payload, {
    vapidDetails: { subject: input.subject, publicKey: input.keys.publicKey, privateKey: input.keys.privateKey },
    TTL: input.ttlSeconds,
    urgency: 'high',
    topic: input.topic,
  });
  const headers = Object.fromEntries(Object.entries(details.headers).map(([name, value]) => [name, String(value)]));
  let response: Response;
  try {
    response = await fetch(details.endpoint, {
      method: 'POST',
      headers,
      body: details.body ? new Uint8Array(details.body) : null,
      redirect: 'manual',
      signal: AbortSignal.any([input.signal, AbortSignal.timeout(input.timeoutMs)]),
    });
  } catch (error) {
    return { failed: `could not reach the push service (${(error as Error).name})` };
  }
  await response.body?.cancel();
  if (response.status === 404 || response.status === 410) return 'gone';
  if (response.status >= 200 && response.status < 300) return 'sent';
  return { failed: `the push service answered ${response.status}` };
}

/** A push service's topic for an action (at most 32 URL-safe characters). */
export function topicOf(actionId: string): string {
  return createHash('sha256').update(actionId).digest('base64url').slice(0, 32);
}
