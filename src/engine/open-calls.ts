import type { MessagePart, MessageRecord } from '../types.js';

export type ToolCallPart = Extract<MessagePart, { type: 'tool-call' }>;

/**
 * The assistant message that records a failed turn (its `metadata.failed`, no parts): kept so a reader
 * sees the failure after a reload, and passed over by everything that reads the conversation to go on.
 */
export function isFailureRecord(message: MessageRecord): boolean {
  return message.role === 'assistant' && message.parts.length === 0 && message.metadata?.failed !== undefined;
}

/** The last message that is not a failure record. */
export function lastMessage(messages: MessageRecord[]): MessageRecord | undefined {
  for (let index = messages.length - 1; index >= 0; index--)
    if (!isFailureRecord(messages[index])) return messages[index];
  return undefined;
}

/**
 * The tool calls still waiting for a result: those of the last assistant message (only tool messages
 * may follow it) that no later tool message answers. Undefined when there is none.
 */
export function openToolCalls(
  messages: MessageRecord[],
): { assistant: MessageRecord; calls: ToolCallPart[] } | undefined {
  const answered = new Set<string>();
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (isFailureRecord(message)) continue;
    if (message.role === 'tool') {
      for (const part of message.parts) if (part.type === 'tool-result') answered.add(part.toolCallId);
      continue;
    }
    if (message.role !== 'assistant') return undefined;
    const calls = message.parts.filter(
      (part): part is ToolCallPart => part.type === 'tool-call' && !answered.has(part.toolCallId),
    );
    return calls.length > 0 ? { assistant: message, calls } : undefined;
  }
  return undefined;
}
