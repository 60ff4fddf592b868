/**
 * Who is calling: a user id (null when anonymous), the groups they are in, plus whatever the app attached
 * (roles, tenant…). Library calls made without a caller act as the conversation's owner.
 */
export interface Caller {
  userId: string | null;
  /** Group names (without `group:`): `group:<name>` entries of approvers, assignees and `auth.admins` name them. */
  groups?: string[];
  data?: Record<string, unknown>;
  /** The signed-in person's address, where sign-in gives one: matched to the address a chat platform gives (src/engine/participants.ts). */
  email?: string;
  /** For a personal token: what it may do (`read`, `answer`, `converse`, `admin`); absent, anything the person may. */
  scopes?: readonly string[];
  /**
   * Named in `auth.admins` (set by the HTTP layer, never taken from a token or a hook): may read every
   * conversation (src/engine/access.ts), besides the operator routes.
   */
  admin?: boolean;
  /**
   * For a caller signed in with a session (docs/auth.md): whether that session is still on. A stream it
   * opened ends when it is not (signed out, or lapsed), as when a delegation it read through ends.
   */
  stillSignedIn?: () => Promise<boolean>;
}

export const systemCaller: Caller = { userId: null, data: { system: true } };

/**
 * Who the record names as having settled a request that lapsed (DESIGN.md §4, seed 002), with channel
 * `timeout`. A user whose id is the same string answers over `api`: `channel` is what tells them apart.
 */
export const LAPSE_RESOLVER = 'system:timeout';

/**
 * What the record says about who did something: the user id, or null for an anonymous caller. How it
 * was done (a person, the system, a lapse) is a separate field, so a user id never stands for either.
 */
export function callerId(caller: Caller | null): string | null {
  return caller?.userId ?? null;
}

/**
 * Internal, for the engine's writes: set only by a channel's adapter (docs/channels.md), which calls the
 * engine directly. A conversation that lives in a channel (Slack) is written only from there; the library
 * API and the HTTP API never set it (`Heed`'s methods drop it).
 */
export interface ChannelWrite {
  /**
   * `channel`: the write comes from the channel itself. `parent`: it is part of a write already allowed on the
   * conversation's parent (a cancel or a lapse stopping the child agents it called, src/engine/cancel.ts).
   */
  via?: 'channel' | 'parent';
}
