import { commitWrite } from './transact.js';
import type { Caller } from '../caller.js';
import { newConversationRecord, type Engine } from './engine.js';
import { HeedError } from '../errors.js';
import { newId } from '../ids.js';
import type { ActionRecord, ConversationRecord, MessageRecord } from '../types.js';
import { openCallResults } from './withdraw.js';

/**
 * Copies a conversation (up to and including `fromMessageId`) into a new private one owned by the
 * caller. Requests still open in the original arrive closed: nothing written in the branch reaches it.
 */
export async function branchConversation(engine: Engine, conversationId: string, options: { caller?: Caller; fromMessageId?: string } = {}): Promise<ConversationRecord> {
  const source = await engine.visibleConversation(conversationId, options.caller);
  let messages = await engine.store.listMessages(conversationId);
  if (options.fromMessageId) {
    let end = messages.findIndex((message) => message.id === options.fromMessageId);
    if (end < 0) throw new HeedError('not_found', 'There is no message with that id in this conversation.', { details: { messageId: options.fromMessageId } });
    // Keep the tool results that belong to the last assistant message kept.
    while (end + 1 < messages.length && messages[end + 1].role === 'tool') end++;
    messages = messages.slice(0, end + 1);
  }
  const at = engine.now();
  const id = newId('c');
  const ids = new Map<string, string>();
  const copied: MessageRecord[] = messages.map((message, position) => {
    const copy = { ...message, id: newId('m'), conversationId: id, position };
    ids.set(message.id, copy.id);
    return copy;
  });
  copied.push(...openCallResults(copied, at, 'Closed: this request was still open when the conversation was branched.').map((result) => result.message));
  const actions: ActionRecord[] = (await engine.store.listActions(conversationId))
    .filter((action) => ids.has(action.messageId))
    .map((action) => {
      const copy: ActionRecord = { ...action, id: newId('a'), conversationId: id, messageId: ids.get(action.messageId)! };
      if (copy.status === 'pending') {
        Object.assign(copy, { status: 'cancelled', resolution: { type: 'cancelled', reason: 'branched' }, resolvedBy: null, channel: 'system', resolvedAt: at, expiresAt: null });
      }
      return copy;
    });
  const conversation = newConversationRecord({
    id,
    agent: source.agent,
    ownerId: options.caller ? options.caller.userId : source.ownerId,
    channel: null,
    metadata: { ...(source.metadata ?? {}), branchedFrom: source.id },
    createdAt: at,
    intakeDone: source.intakeDone,
  });
  const result = await commitWrite(engine, { conversationId: id, create: conversation, messages: copied, actions });
  if (!result.ok) throw new HeedError('internal_error', 'The branch could not be written.');
  return result.conversation;
}
