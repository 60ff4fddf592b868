import type { JsonObject, JsonValue } from './values.js';

/*
 * A request made with `POST /api/requests` lives in a conversation of its own in which no agent runs: its
 * `agent` is the reserved name below (no configured agent may take it), so sending it a message is refused
 * and settling its request ends there, with no turn. What only the server reads of it (where to call back,
 * the idempotency key) is kept in its metadata under a reserved key that views leave out.
 */

/** Metadata keys with this prefix are the server's own: a caller's metadata may not carry them. */
export const RESERVED_METADATA_PREFIX = 'heed:';

/** The `agent` of a conversation that holds a request made with `POST /api/requests`. */
export const REQUESTS_AGENT = 'heed:requests';

/** The metadata key of what the server keeps about such a request; never shown. */
export const REQUEST_SETTINGS_KEY = 'heed:request';

/** What the server keeps about a request made with `POST /api/requests`. */
export interface RequestSettings {
  callbackUrl?: string;
  idempotencyKey?: string;
  /** Where in a chat workspace it is posted too (`<platform>:<place>`, a configured channel's). */
  channel?: string;
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
  if (typeof kept.channel === 'string') settings.channel = kept.channel;
  return settings;
}

/**
 * The metadata key of a conversation's A2A push-notification configs (docs/a2a.md): they hold a caller's
 * token and credentials, so views leave them out like a request's settings.
 */
export const A2A_SETTINGS_KEY = 'heed:a2a';

/** One A2A push-notification config of a task, as the server keeps it. */
export interface A2aPushConfig {
  id: string;
  /** The id of the user message that started the task. */
  task: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials: string };
  /**
   * Who made it (a user id; null: an anonymous caller): it is delivered only while they may still send to the
   * conversation. Absent on a config kept from before makers were recorded: taken as the conversation's owner.
   */
  maker?: string | null;
}

/** The A2A push-notification configs kept in a conversation's metadata (none when it has none). */
export function a2aPushConfigs(conversation: { metadata: JsonObject | null }): A2aPushConfig[] {
  const kept = conversation.metadata?.[A2A_SETTINGS_KEY];
  if (typeof kept !== 'object' || kept === null || Array.isArray(kept) || !Array.isArray(kept.push)) return [];
  return kept.push.flatMap((entry): A2aPushConfig[] => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return [];
    const { id, task, url, token, authentication: auth, maker } = entry;
    if (typeof id !== 'string' || typeof task !== 'string' || typeof url !== 'string') return [];
    const authentication =
      typeof auth === 'object' &&
      auth !== null &&
      !Array.isArray(auth) &&
      typeof auth.scheme === 'string' &&
      typeof auth.credentials === 'string'
        ? { scheme: auth.scheme, credentials: auth.credentials }
        : undefined;
    return [
      {
        id,
        task,
        url,
        ...(typeof token === 'string' ? { token } : {}),
        ...(authentication ? { authentication } : {}),
        ...(typeof maker === 'string' || maker === null ? { maker } : {}),
      },
    ];
  });
}

const HIDDEN = [REQUEST_SETTINGS_KEY, A2A_SETTINGS_KEY];

/** Metadata as clients see it: without the server's own settings of a request or of A2A push notifications. */
export function shownMetadata(metadata: JsonObject | null): JsonObject | null {
  if (!metadata || !HIDDEN.some((key) => Object.hasOwn(metadata, key))) return metadata;
  const shown: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(metadata)) if (!HIDDEN.includes(key)) shown[key] = value;
  return shown;
}
