import type { MessageMetadata } from '../types.js';

/** What a user message that ran a reply again records (`metadata.regenerates`). */
export type RegenerateMark = NonNullable<MessageMetadata['regenerates']>;

/** A stored message or its view: what the marks are read from. */
type Listed = {
  role: string;
  parts: Array<{ type: string; toolCallId?: string }>;
  metadata?: { [key: string]: unknown } | null;
};

/** The mark of a user message that ran a reply again, or undefined. */
export function regenerateMark(message: Listed): RegenerateMark | undefined {
  const mark = message.role === 'user' ? message.metadata?.regenerates : undefined;
  if (typeof mark !== 'object' || mark === null || Array.isArray(mark)) return undefined;
  const { messageId, count } = mark as Record<string, unknown>;
  return typeof messageId === 'string' && typeof count === 'number' && Number.isInteger(count) && count > 0
    ? { messageId, count }
    : undefined;
}

/** The intake's questions and their answers belong to the person, not to the reply: they are never replaced. */
function isIntake(message: Listed, intakeCalls: Set<string>): boolean {
  if (message.role === 'assistant') return message.metadata?.intake === true;
  return (
    message.role === 'tool' &&
    message.parts.length > 0 &&
    message.parts.every(
      (part) => part.type === 'tool-result' && part.toolCallId !== undefined && intakeCalls.has(part.toolCallId),
    )
  );
}

/**
 * The messages that count for the model and for a chat's view, in order: a reply that was made again
 * (a user message marked `regenerates`, and the `count` messages before it that it replaces) is kept in
 * the record but left out here, except the intake's questions and answers. The marks are counted back
 * from the marking message, so they hold in a branch (which copies messages in order) and in a page.
 */
export function liveMessages<T extends Listed>(messages: T[]): T[] {
  let replaced: Set<number> | undefined;
  let intakeCalls: Set<string> | undefined;
  messages.forEach((message, index) => {
    const mark = regenerateMark(message);
    if (!mark) return;
    replaced ??= new Set();
    intakeCalls ??= new Set(
      messages.flatMap((candidate) =>
        candidate.metadata?.intake === true
          ? candidate.parts.flatMap((part) =>
              part.type === 'tool-call' && part.toolCallId !== undefined ? [part.toolCallId] : [],
            )
          : [],
      ),
    );
    for (let at = Math.max(0, index - mark.count); at < index; at++)
      if (!isIntake(messages[at], intakeCalls)) replaced.add(at);
  });
  const removed = replaced;
  return removed ? messages.filter((_, index) => !removed.has(index)) : messages;
}
