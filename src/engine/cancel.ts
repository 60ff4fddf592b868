// The cancel verb's running half: reads the store, commits through the runner, starts what comes next.
// What it writes is decided in src/engine/decide/cancel.ts (pure).
import type { Caller, ChannelWrite } from '../caller.js';
import type { Engine } from './engine.js';
import type { ConversationStatus } from '../types.js';
import { releaseLiveCalls } from './withdraw.js';
import { transact } from './transact.js';
import { parentOf } from './children.js';
import { startParent } from './child-continue.js';
import { cancelParts, decideCancel } from './decide/cancel.js';

/**
 * Cancels what a conversation is doing: an open pause (every pending action closes as cancelled) or a
 * running turn (its claim is dropped and it stops at its next write). Idle conversations are left alone.
 * The cancel decider (src/engine/decide/cancel.ts) under the runner.
 */
export async function cancelConversation(
  engine: Engine,
  conversationId: string,
  options: { caller?: Caller } & ChannelWrite = {},
): Promise<{ status: ConversationStatus; cancelled: boolean }> {
  const done = await transact(engine, conversationId, cancelParts, (read) => decideCancel(engine, options, read), {
    busy: 'The conversation kept changing while it was being cancelled; try again.',
  });
  if (!done.value.cancelled) return { status: 'idle', cancelled: false };
  engine.running.get(conversationId)?.abort();
  releaseLiveCalls(engine, done.value.closed);
  // As part of this cancel: a child living in its lead's thread is not refused as a write from outside it.
  for (const child of done.value.children)
    await cancelConversation(engine, child, { caller: options.caller, via: 'parent' });
  // A child cancelled by itself ends its parent's wait: the parent reads that it was cancelled.
  const link = parentOf(done.conversation);
  if (link) startParent(engine, link.conversationId);
  return { status: 'idle', cancelled: true };
}
