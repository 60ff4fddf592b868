// The branch verb's running half: reads the store, commits through the runner, starts what comes next.
// What it writes is decided in src/engine/decide/branch.ts (pure).
import type { Caller } from '../caller.js';
import type { Engine } from './engine.js';
import type { ConversationRecord } from '../types.js';
import { transact } from './transact.js';
import { branchParts, decideBranch } from './decide/branch.js';

/**
 * Copies a conversation (up to and including `fromMessageId`) into a new private one owned by the
 * caller, from one snapshot of it (the branch decider, src/engine/decide/branch.ts, under the runner).
 * Requests still open in the original arrive closed: nothing written in the branch reaches it.
 */
export async function branchConversation(
  engine: Engine,
  conversationId: string,
  options: { caller?: Caller; fromMessageId?: string } = {},
): Promise<ConversationRecord> {
  const done = await transact(engine, conversationId, branchParts, (read) => decideBranch(engine, options, read), {
    busy: 'The conversation kept changing while it was being branched; try again.',
  });
  return done.conversation;
}
