// The branch verb's deciding half: pure, from what was read to the writes and the answer. Its running half,
// src/engine/branch.ts, reads the store, commits through the runner and starts what comes next.
import type { Caller } from '../../caller.js';
import { newConversationRecord, type Engine } from '../engine.js';
import { conversationNotFound, mayWriteAsOwner } from '../access.js';
import { HeedError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { ActionRecord, MessageRecord } from '../../types.js';
import { openCallResults } from '../withdraw.js';
import type { Decision, Snapshot } from '../transact.js';

/** What the branch decider reads: the source's messages and actions, from one snapshot, so the copy is of one version. */
export const branchParts = { messages: true, actions: true } as const;

/**
 * The branch decider: a new private conversation owned by the caller, holding the source up to and
 * including `fromMessageId`. Requests still open in the source arrive closed: nothing written in the branch reaches it.
 */
export function decideBranch(
  engine: Engine,
  input: { caller?: Caller; fromMessageId?: string },
  read: Snapshot<typeof branchParts>,
): Decision<null> {
  const source = read.conversation;
  if (!mayWriteAsOwner(input.caller, source)) throw conversationNotFound(source.id);
  let messages = read.messages;
  if (input.fromMessageId) {
    let end = messages.findIndex((message) => message.id === input.fromMessageId);
    if (end < 0)
      throw new HeedError('not_found', 'There is no message with that id in this conversation.', {
        details: { messageId: input.fromMessageId },
      });
    // Keep the tool results that belong to the last assistant message kept.
    while (end + 1 < messages.length && messages[end + 1].role === 'tool') end++;
    messages = messages.slice(0, end + 1);
  }
  mustFitBranch(messages, engine.limits.maxBranchBytes);
  const at = engine.now();
  const id = newId('c');
  const ids = new Map<string, string>();
  const copied: MessageRecord[] = messages.map((message, position) => {
    const copy = { ...message, id: newId('m'), conversationId: id, position };
    ids.set(message.id, copy.id);
    return copy;
  });
  copied.push(
    ...openCallResults(copied, at, 'Closed: this request was still open when the conversation was branched.').map(
      (result) => result.message,
    ),
  );
  const actions: ActionRecord[] = [];
  for (const action of read.actions) {
    const messageId = ids.get(action.messageId);
    if (messageId === undefined) continue;
    const copy: ActionRecord = { ...action, id: newId('a'), conversationId: id, messageId };
    if (copy.status === 'pending') {
      Object.assign(copy, {
        status: 'cancelled',
        resolution: { type: 'cancelled', reason: 'branched' },
        resolvedBy: null,
        channel: 'system',
        resolvedAt: at,
        expiresAt: null,
      });
    }
    actions.push(copy);
  }
  const conversation = newConversationRecord({
    id,
    agent: source.agent,
    ownerId: input.caller ? input.caller.userId : source.ownerId,
    channel: null,
    metadata: { ...(source.metadata ?? {}), branchedFrom: source.id },
    createdAt: at,
    intakeDone: source.intakeDone,
  });
  return {
    type: 'create',
    create: { conversationId: id, create: conversation, messages: copied, actions },
    value: null,
  };
}

/**
 * A branch copies what it keeps: a conversation grown to many megabytes would cost as much again per branch,
 * as often as the conversation rate limit lets a caller branch. Counted until the bound is passed, no further.
 */
function mustFitBranch(messages: readonly MessageRecord[], maxBytes: number): void {
  let bytes = 0;
  for (const message of messages) {
    bytes += Buffer.byteLength(JSON.stringify(message.parts));
    if (bytes > maxBytes)
      throw new HeedError(
        'payload_too_large',
        `Branching here would copy more than ${maxBytes} bytes of messages (limits.maxBranchBytes); branch from an earlier message.`,
        { details: { limit: 'maxBranchBytes', maxBytes } },
      );
  }
}
