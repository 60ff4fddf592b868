import type { Caller } from '../caller.js';
import type { ChannelUser, ChannelUserId } from '../config-shapes.js';
import type { Store } from '../store/store.js';
import type { ConversationRecord } from '../types.js';

/*
 * The people of a chat workspace who took part in a conversation there (DESIGN.md §18): a conversation
 * that lives in a channel has no owner, so it is listed for, and read by, the Heed people its participants
 * map to. A participant maps by the channel's `userId(user)` (a Heed user id) or by the address the
 * platform gives (matched to the signed-in person's `email`). Kept in the store's values, both ways: the
 * conversation's people, and each person's conversations.
 */

type StoreValues = Pick<Store, 'listValues' | 'putValues'>;

/** Who a person of a workspace is in Heed: the config's `userId(user)`, else the address the platform gives. */
export interface Mapped {
  /** The Heed user id `userId(user)` gave, or the platform's address when it gave none (user ids are often addresses). */
  userId?: string;
  /** The keys the person's conversations are kept under. */
  keys: string[];
}

export async function mapPerson(user: ChannelUser, userIdOf: ChannelUserId | undefined): Promise<Mapped> {
  const mapped = (await userIdOf?.(user)) ?? undefined;
  const email = user.email?.trim().toLowerCase() || undefined;
  const keys = [...(mapped ? [`user:${mapped}`] : []), ...(email ? [`email:${email}`] : [])];
  const userId = mapped || email;
  return { ...(userId ? { userId } : {}), keys };
}

/** The keys a signed-in caller's channel conversations are kept under: their user id, and their address. */
function callerKeys(caller: Caller): string[] {
  if (caller.userId === null) return [];
  const email = caller.email?.trim().toLowerCase();
  return [`user:${caller.userId}`, ...(email ? [`email:${email}`] : [])];
}

const PEOPLE = 'channel-people:';
const TAKEN_PART = 'channel-conversations:';

/** The scope of the channel conversations a Heed user id took part in (erasure drops it). */
export function participationScope(userId: string): string {
  return `${TAKEN_PART}user:${userId}`;
}

/** Records that a mapped person took part in a channel's conversation (idempotent). */
export async function recordParticipant(store: StoreValues, conversationId: string, mapped: Mapped): Promise<void> {
  if (mapped.keys.length === 0) return;
  await store.putValues(
    mapped.keys.flatMap((key) => [
      { scope: `${PEOPLE}${conversationId}`, key, value: '' },
      { scope: `${TAKEN_PART}${key}`, key: conversationId, value: '' },
    ]),
  );
}

/** Whether a signed-in caller maps to one of a channel conversation's participants. */
export async function participates(store: StoreValues, conversationId: string, caller: Caller): Promise<boolean> {
  const keys = callerKeys(caller);
  if (keys.length === 0) return false;
  const people = new Set((await store.listValues(`${PEOPLE}${conversationId}`)).map((row) => row.key));
  return keys.some((key) => people.has(key));
}

/** The ids of the channel conversations a signed-in caller took part in, through any of their keys. */
export async function participations(store: StoreValues, caller: Caller): Promise<string[]> {
  const ids = new Set<string>();
  for (const key of callerKeys(caller))
    for (const row of await store.listValues(`${TAKEN_PART}${key}`)) ids.add(row.key);
  return [...ids];
}

/**
 * The channel conversations a signed-in caller took part in, as the list filters them (status, agent, the
 * title or agent search), newest first. An admin's list is their own, like anyone's.
 */
export async function joinedConversations(
  store: StoreValues & Pick<Store, 'getConversation'>,
  caller: Caller,
  filter: { status?: ConversationRecord['status']; agent?: string; search?: string; limit?: number },
): Promise<ConversationRecord[]> {
  const ids = await participations(store, caller);
  const records = await Promise.all(ids.map((id) => store.getConversation(id)));
  const search = filter.search?.toLowerCase();
  return records
    .filter((record): record is ConversationRecord => record !== undefined && record !== null)
    .filter((record) => record.channel !== null && record.ownerId === null)
    .filter((record) => (filter.status ? record.status === filter.status : true))
    .filter((record) => (filter.agent ? record.agent === filter.agent : true))
    .filter((record) => {
      if (!search) return true;
      const title = typeof record.metadata?.title === 'string' ? record.metadata.title : '';
      return title.toLowerCase().includes(search) || record.agent.toLowerCase().includes(search);
    });
}
