import { commitWrite } from './transact.js';
import { callerId, refuseChannelWrite, type Caller, type ChannelWrite } from '../caller.js';
import type { Engine } from './engine.js';
import { HeedError } from '../errors.js';
import { newEvent } from '../protocol/events.js';
import type { ConversationStatus } from '../types.js';
import { withdrawalWrites, releaseLiveCalls } from './withdraw.js';
import { dropQueue } from './queue.js';

/**
 * Cancels what a conversation is doing: an open pause (every pending action closes as cancelled) or a
 * running turn (its claim is dropped and it stops at its next write). Idle conversations are left alone.
 */
export async function cancelConversation(
  engine: Engine,
  conversationId: string,
  options: { caller?: Caller } & ChannelWrite = {},
): Promise<{ status: ConversationStatus; cancelled: boolean }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const conversation = await engine.visibleConversation(conversationId, options.caller);
    refuseChannelWrite(conversation, options.via, 'cancel it there.');
    if (conversation.status === 'idle') return { status: 'idle', cancelled: false };
    const messages = await engine.store.listMessages(conversationId);
    const pending = (await engine.store.listActions(conversationId)).filter((action) => action.status === 'pending');
    const by = callerId(options.caller ?? { userId: conversation.ownerId });
    const closing = withdrawalWrites(engine, messages, pending, { resolvedBy: by, channel: 'api', reason: 'cancelled' });
    const at = engine.now();
    // Messages queued behind a cancelled turn are cancelled with it: a stop stops what was asked next too.
    const queued = dropQueue(engine, conversation, { code: 'cancelled', message: 'The turn this message waited for was cancelled, and the message with it; send it again.' });
    const result = await commitWrite(engine, {
      conversationId,
      expectVersion: conversation.version,
      settle: closing.settle,
      messages: closing.messages,
      events: [...closing.events, newEvent('turn.cancelled', at, { reason: 'cancelled', by }), ...queued.events],
      set: { status: 'idle', actionDueAt: null, leaseOwner: null, leaseExpiresAt: null, updatedAt: at, ...queued.set },
    });
    if (result.ok) {
      engine.running.get(conversationId)?.abort();
      releaseLiveCalls(engine, pending);
      return { status: 'idle', cancelled: true };
    }
  }
  throw new HeedError('conversation_busy', 'The conversation kept changing while it was being cancelled; try again.');
}
