import type { Caller } from '../caller.js';

/** The restricted JSON Schema of a form-mode elicitation: one level of primitive fields. */
export interface ElicitationFormSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
}

/** What a person's answer (or a hook) sends back to a form field. */
export type ElicitationValue = string | number | boolean | string[];

/** What an MCP server asked for in the middle of a tool call, as a `beforeInputRequest` hook sees it. */
export type InputRequest = {
  /** The server's name in `mcpServers`. */
  server: string;
  /** The MCP tool being called (its own name, not the `<server>_<tool>` name the model sees). */
  tool: string;
  conversationId: string;
  /** Who sent the message or answer that started the call (null for the system or an anonymous caller). */
  caller: Caller | null;
  /** What the server says it needs, in its own words. */
  message: string;
} & ({ mode: 'form'; requestedSchema: ElicitationFormSchema } | { mode: 'url'; url: string });

/**
 * A hook's reply: undefined asks the person; `accept` answers for them (`content` holds the form's
 * values; none for a URL); `decline` or `cancel` refuses without asking.
 */
export type InputReply =
  undefined | { action: 'accept'; content?: Record<string, ElicitationValue> } | { action: 'decline' | 'cancel' };

/** Runs before a person is asked: may answer the request, refuse it, or leave it to the person. */
export type BeforeInputRequest = (request: InputRequest) => InputReply | Promise<InputReply>;
