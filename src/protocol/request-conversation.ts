import type { JsonObject, JsonValue } from './values.js';

/*
 * A request made with `POST /api/requests` lives in a conversation of its own in which no agent runs: its
 * `agent` is the reserved name below (no configured agent may take it), so sending it a message is refused
 * and settling its request ends there, with no turn. What only the server reads of it (where to call back,
 * the idempotency key) is kept in its metadata under a reserved key that views leave out.
 */

/** The `agent` of a conversation that holds a request made with `POST /api/requests`. */
export const REQUESTS_AGENT = 'heed:requests';

/** The metadata key of what the server keeps about such a request; never shown. */
export const REQUEST_SETTINGS_KEY = 'heed:request';

/** What the server keeps about a request made with `POST /api/requests`. */
export interface RequestSettings {
  callbackUrl?: string;
  idempotencyKey?: string;
}

/** True for a conversation that holds a request made with `POST /api/requests` (no agent runs in it). */
export function holdsRequest(conversation: { agent: string }): boolean {
  return conversation.agent === REQUESTS_AGENT;
}

/** The settings a request's conversation keeps; empty for any other conversation. */
export function requestSettings(conversation: { agent: string; metadata: JsonObject | null }): RequestSettings {
  if (!holdsRequest(conversation)) return {};
  const kept = conversation.metadata?.[REQUEST_SETTINGS_KEY];
  if (typeof kept !== 'object' || kept === null || Array.isArray(kept)) return {};
  const settings: RequestSettings = {};
  if (typeof kept.callbackUrl === 'string') settings.callbackUrl = kept.callbackUrl;
  if (typeof kept.idempotencyKey === 'string') settings.idempotencyKey = kept.idempotencyKey;
  return settings;
}

/** Metadata as clients see it: without the server's own settings of a request. */
export function shownMetadata(metadata: JsonObject | null): JsonObject | null {
  if (!metadata || !Object.hasOwn(metadata, REQUEST_SETTINGS_KEY)) return metadata;
  const shown: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(metadata)) if (key !== REQUEST_SETTINGS_KEY) shown[key] = value;
  return shown;
}
