import { createHmac } from 'node:crypto';
import { canonicalJson, sha256Hex, type AuditAppend, type AuditVerb, type NewAuditEntry } from '../store/audit.js';
import type { Change, Store, ValueWrites } from '../store/store.js';
import type { ActionRecord, JsonObject } from '../types.js';

/*
 * What the audit log records (docs/operating.md, The audit log): the decisions a change carries, read from its
 * events, and the ones that change no conversation (sign-ins, tokens, delegations, erasures). People are named
 * by a pseudonym, an HMAC of their id under a key kept in the store; erasure names them `erased:` and the
 * first 8 hex of the same HMAC, so an auditor can match the two.
 */

/** The store's secret the pseudonyms are made with. */
const KEY_NAME = 'audit-pseudonym';

const keys = new WeakMap<Store, Promise<string>>();

/** The pseudonym key, read once per store and process (a failed read is not kept). */
export function pseudonymKey(store: Pick<Store, 'secret'>): Promise<string> {
  const holder = store as Store;
  let key = keys.get(holder);
  if (!key) {
    key = store.secret(KEY_NAME);
    keys.set(holder, key);
    key.catch(() => keys.delete(holder));
  }
  return key;
}

function hmacHex(key: string, userId: string): string {
  return createHmac('sha256', key).update(userId).digest('hex');
}

// The pseudonyms made lately, by key and id: an HMAC is a good part of an entry's cost, and the same few
// people decide again and again.
const made = new Map<string, string>();
const MADE_KEPT = 4096;

/** `p_` + the first 16 hex of the HMAC of the id. */
export function personKey(key: string, userId: string): string {
  const cacheKey = `${key}\n${userId}`;
  let pseudonym = made.get(cacheKey);
  if (pseudonym === undefined) {
    pseudonym = `p_${hmacHex(key, userId).slice(0, 16)}`;
    if (made.size >= MADE_KEPT) made.clear();
    made.set(cacheKey, pseudonym);
  }
  return pseudonym;
}

/** `erased:` + the first 8 hex of the HMAC of the id: what replaces it once the person is erased. */
export function erasedName(key: string, userId: string): string {
  return `erased:${hmacHex(key, userId).slice(0, 8)}`;
}

/** A decision as the engine sees it: people by their ids (null: anonymous), the arguments as they are. */
export interface AuditInput {
  at: string;
  actor: string | null;
  onBehalfOf?: string;
  verb: AuditVerb;
  conversationId?: string;
  actionId?: string;
  toolName?: string;
  args?: unknown;
  decision?: string;
  surface: string;
}

/** Who is no person: Heed itself (`system`, `system:timeout`…). */
const isSystem = (id: string) => id === 'system' || id.startsWith('system:');

/** The entries and pseudonyms to append for these decisions. */
export function auditAppend(key: string, inputs: AuditInput[]): AuditAppend {
  const people = new Map<string, string>();
  const name = (id: string | null): string => {
    if (id === null) return 'anonymous';
    if (isSystem(id)) return id;
    const pseudonym = personKey(key, id);
    people.set(pseudonym, id);
    return pseudonym;
  };
  const entries = inputs.map((input): NewAuditEntry => ({
    at: input.at,
    actorKey: name(input.actor),
    ...(input.onBehalfOf !== undefined ? { onBehalfOfKey: name(input.onBehalfOf) } : {}),
    verb: input.verb,
    ...(input.conversationId !== undefined ? { conversationId: input.conversationId } : {}),
    ...(input.actionId !== undefined ? { actionId: input.actionId } : {}),
    ...(input.toolName !== undefined ? { toolName: input.toolName } : {}),
    ...(input.args !== undefined ? { argsSha256: sha256Hex(canonicalJson(input.args)) } : {}),
    ...(input.decision !== undefined ? { decision: input.decision } : {}),
    surface: input.surface,
  }));
  return { entries, people: [...people].map(([pseudonym, userId]) => ({ key: pseudonym, userId })) };
}

/**
 * Records decisions that change no conversation with the value writes that make them (a token, a session, a
 * delegation), in one transaction (`Store.appendAudit`).
 */
export type AuditRecorder = (inputs: AuditInput[], values?: ValueWrites) => Promise<void>;

/** Appends decisions that change no conversation, with the value writes that make them, in one transaction. */
export async function recordAudit(
  store: Pick<Store, 'secret' | 'appendAudit'>,
  inputs: AuditInput[],
  values?: ValueWrites,
): Promise<void> {
  await store.appendAudit(auditAppend(await pseudonymKey(store), inputs), values);
}

/** Where no audit log is kept (a part used on its own, in a test): the value writes alone. */
export function valuesOnly(store: Pick<Store, 'putValues' | 'deleteValues'>): AuditRecorder {
  return async (_inputs, values) => {
    if (values?.put?.length) await store.putValues(values.put);
    for (const { scope, keys } of values?.drop ?? []) await store.deleteValues(scope, keys);
  };
}

/** Who settled an action nobody signed in answered: Heed itself for a lapse, a remembered approval or the system; else an anonymous caller. */
function heedItself(channel: string): string | null {
  if (channel === 'timeout') return 'system:timeout';
  return channel === 'system' || channel === 'remembered' ? 'system' : null;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The event types that can record a decision; the rest are passed over. */
const AUDITED = new Set(['action.resolved', 'action.voted', 'action.extended', 'turn.cancelled']);

/**
 * The decisions a change records, read from its events: an answer, a lapse or a cancel (`action.resolved`),
 * a vote, an extension, a turn cancelled with nothing pending. Arguments are those of the action's request.
 */
export function decisionsOf(change: Change, actions: ActionRecord[] | undefined): AuditInput[] {
  const events = change.events ?? [];
  const argsOf = (actionId: string | undefined) => {
    if (actionId === undefined) return undefined;
    const action = change.actions?.find((one) => one.id === actionId) ?? actions?.find((one) => one.id === actionId);
    return (action?.request as { args?: unknown } | undefined)?.args;
  };
  const inputs: AuditInput[] = [];
  let actionCancelled = false;
  for (const event of events) {
    // Most of a commit's events (messages, deltas, tool calls) decide nothing: passed over before any work.
    if (!AUDITED.has(event.type)) continue;
    const data: JsonObject = event.data;
    const actionId = text(data.actionId);
    const common = {
      at: event.at,
      conversationId: change.conversationId,
      ...(actionId !== undefined ? { actionId } : {}),
      ...(text(data.toolName) !== undefined ? { toolName: text(data.toolName) } : {}),
      ...(argsOf(actionId) !== undefined ? { args: argsOf(actionId) } : {}),
    };
    if (event.type === 'action.resolved') {
      const channel = text(data.channel) ?? 'system';
      const status = text(data.status) ?? 'resolved';
      if (status === 'cancelled') actionCancelled = true;
      // Each entry's own keys before the common ones, which never name one (src/objects.ts says why).
      inputs.push({
        verb: channel === 'timeout' ? 'lapse' : status === 'cancelled' ? 'cancel' : 'answer',
        actor: text(data.resolvedBy) ?? heedItself(channel),
        ...(text(data.answeredFor) !== undefined ? { onBehalfOf: text(data.answeredFor) } : {}),
        decision: text(data.decision) ?? status,
        surface: channel,
        ...common,
      });
    } else if (event.type === 'action.voted') {
      inputs.push({
        verb: 'vote',
        actor: text(data.by) ?? null,
        ...(text(data.for) !== undefined ? { onBehalfOf: text(data.for) } : {}),
        decision: text(data.decision),
        surface: text(data.channel) ?? 'api',
        ...common,
      });
    } else if (event.type === 'action.extended') {
      inputs.push({
        verb: 'extend',
        actor: text(data.by) ?? null,
        decision: text(data.expiresAt) ?? 'never',
        surface: text(data.channel) ?? 'api',
        ...common,
      });
    } else if (event.type === 'turn.cancelled' && data.reason === 'cancelled' && !actionCancelled) {
      inputs.push({
        at: event.at,
        conversationId: change.conversationId,
        verb: 'cancel',
        actor: text(data.by) ?? null,
        surface: 'api',
      });
    }
  }
  return inputs;
}
