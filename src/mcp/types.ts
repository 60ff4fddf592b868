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

interface McpServerCommon {
  /**
   * Ask a person before calling the server's tools: true for all, or by the MCP tool's own name
   * (tools left out of the record run without asking). Default false.
   */
  needsApproval?: boolean | Record<string, boolean>;
  /** Runs before the agent's own `beforeInputRequest` for this server's requests. */
  beforeInputRequest?: BeforeInputRequest;
  /**
   * Seconds a tool call may take, not counting the time a person takes to answer the server's
   * requests (the clock restarts after each answer). Default 60.
   */
  timeoutSeconds?: number;
  /**
   * Connections Heed may open to this server (default 4). Each runs one call at a time, so a call
   * waiting on a person holds one; further calls use the others. Set 1 for a server that keeps state
   * per connection and must see every call.
   */
  maxConnections?: number;
  /**
   * Whether the server may use the agent's model (`sampling/createMessage`) during its tool calls.
   * 'ask': a person approves each prompt (and may edit it), then each answer before it goes back.
   * 'remember': after the first allowed prompt in a conversation, later prompts from this server skip
   * that first approval (the answer is still shown). 'never' (default): refused with an MCP error, and
   * sampling is not announced to the server.
   */
  sampling?: SamplingPolicy;
  /** Roots offered to the server (`roots/list`); the capability is announced only when set. */
  roots?: McpRoot[];
}

export type SamplingPolicy = 'ask' | 'remember' | 'never';

/** A root: a `file://` URI the server may work in, with an optional name. */
export interface McpRoot {
  uri: string;
  name?: string;
}

/** A server started as a child process that speaks MCP on its standard input and output. */
export interface McpStdioServer extends McpServerCommon {
  command: string;
  args?: string[];
  /** Added to a small safe set of the parent's variables (PATH, HOME, …); the rest is not passed on. */
  env?: Record<string, string>;
  cwd?: string;
}

/** A server reached over MCP's streamable HTTP transport. */
export interface McpHttpServer extends McpServerCommon {
  url: string;
  headers?: Record<string, string>;
}

export type McpServerConfig = McpStdioServer | McpHttpServer;
