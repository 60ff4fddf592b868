import type { MessagePart, ToolOutput } from '../types.js';

/** The result of each tool call that has one among `messages`, by the call's id. */
export function toolResults(messages: ReadonlyArray<{ parts: MessagePart[] }>): Map<string, ToolOutput> {
  const results = new Map<string, ToolOutput>();
  for (const message of messages) {
    for (const part of message.parts) if (part.type === 'tool-result') results.set(part.toolCallId, part.output);
  }
  return results;
}
