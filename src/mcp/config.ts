import { z } from 'zod';
import { fn, strict, wholeCount } from '../config-shapes.js';
import type { BeforeInputRequest } from './types.js';

/*
 * An agent's `mcpServers` entry (docs/mcp.md): its shape, checked at start, is the one source of its
 * types below.
 */

const stringRecord = z.record(z.string(), z.string({ error: 'expected a string' }), {
  error: 'expected an object of strings',
});

/** A root: a `file://` URI the server may work in, with an optional name. */
const mcpRoot = strict({
  uri: z.string().startsWith('file://', 'expected a file:// URI'),
  name: z.string().optional(),
});

const common = {
  /**
   * Ask a person before calling the server's tools: true for all, or by the MCP tool's own name
   * (tools left out of the record run without asking). Default false.
   */
  needsApproval: z
    .union([z.boolean(), z.record(z.string(), z.boolean())], {
      error: 'expected true/false, or true/false by tool name',
    })
    .optional(),
  /** Runs before the agent's own `beforeInputRequest` for this server's requests. */
  beforeInputRequest: fn<BeforeInputRequest>('beforeInputRequest(request)').optional(),
  /**
   * Seconds a tool call may take, not counting the time a person takes to answer the server's
   * requests (the clock restarts after each answer). Default 60.
   */
  timeoutSeconds: z.number({ error: 'expected a number' }).positive('expected more than 0').optional(),
  /**
   * Connections Heed may open to this server (default 4). Each runs one call at a time, so a call
   * waiting on a person holds one; further calls use the others. Set 1 for a server that keeps state
   * per connection and must see every call.
   */
  maxConnections: wholeCount(1).optional(),
  /**
   * Whether the server may use the agent's model (`sampling/createMessage`) during its tool calls.
   * 'ask': a person approves each prompt (and may edit it), then each answer before it goes back.
   * 'remember': after the first allowed prompt in a conversation, later prompts from this server skip
   * that first approval (the answer is still shown). 'never' (default): refused with an MCP error, and
   * sampling is not announced to the server.
   */
  sampling: z.enum(['ask', 'remember', 'never'], { error: "expected 'ask', 'remember' or 'never'" }).optional(),
  /** Roots offered to the server (`roots/list`); the capability is announced only when set. */
  roots: z.array(mcpRoot, { error: 'expected a list of { uri, name? }' }).optional(),
};

/** A server started as a child process that speaks MCP on its standard input and output. */
const stdioServer = strict({
  ...common,
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /** Added to a small safe set of the parent's variables (PATH, HOME, …); the rest is not passed on. */
  env: stringRecord.optional(),
  cwd: z.string().optional(),
});

/** A server reached over MCP's streamable HTTP transport. */
const httpServer = strict({ ...common, url: z.string().min(1), headers: stringRecord.optional() });

export const mcpServerConfig = z.union([stdioServer, httpServer], {
  error:
    'expected { command, args?, env?, cwd? } (stdio) or { url, headers? } (HTTP), with optional needsApproval, beforeInputRequest, timeoutSeconds, maxConnections, sampling, roots',
});

export type McpStdioServer = z.input<typeof stdioServer>;
export type McpHttpServer = z.input<typeof httpServer>;
export type McpServerConfig = z.input<typeof mcpServerConfig>;
export type McpRoot = z.input<typeof mcpRoot>;
export type SamplingPolicy = NonNullable<McpServerConfig['sampling']>;
