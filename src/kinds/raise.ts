import { z } from 'zod';
import { MAX_TITLE_CHARS } from '../protocol/conversation.js';

/*
 * A request written outside a running tool: by a backend (`POST /api/requests`, MCP), a handler or a
 * remote agent (`pendingActions`). Each kind says how it is written (`ActionKind.raise`, else its stored
 * request's own shape) and what it becomes: what a tool would raise with `ctx.request`, then checked by the
 * kind's `checkRequest` exactly as a tool's is. Every path parses through the same shape (src/kinds/index.ts).
 */

/** What a written request becomes: what a tool would raise, with what the action keeps besides. */
export interface Raise<Raised = unknown> {
  raised: Raised;
  /** The action's `toolName`; absent: the writer's default (`request` for a backend, the kind's name for an agent). */
  toolName?: string;
  expiresInMinutes?: number;
  /** An approval policy (docs/approvals.md), which only an agent's own approvals may carry. */
  policy?: unknown;
  /** The call's id as the agent knows it (a client tool's), so the page's answer can be matched to it. */
  toolCallId?: string;
}

/** How a kind's request is written outside a tool: the shape it is checked by, and what it becomes. */
export interface RaiseShape<Raised = unknown> {
  /** A strict object whose `kind` is the kind's name (its JSON Schema is the OpenAPI document's). */
  readonly shape: z.ZodObject<z.ZodRawShape, z.core.$ZodObjectConfig>;
  read(request: Record<string, unknown>): Raise<Raised>;
}

/** A kind's `raise`, with `read` typed by the shape. */
export function raiseShape<S extends z.ZodObject<z.ZodRawShape, z.core.$ZodObjectConfig>, Raised>(
  shape: S,
  read: (request: z.output<S>) => Raise<Raised>,
): RaiseShape<Raised> {
  return { shape, read: read as (request: Record<string, unknown>) => Raise<Raised> };
}

/** Minutes until it lapses: a request written outside a tool may say. */
export const expiresInMinutesField = z.number().positive().optional().describe('Minutes until it lapses.');

/** A headline in inboxes, mail subjects and chat cards: cut where a conversation's title is. */
export const raisedTitle = z
  .string()
  .max(MAX_TITLE_CHARS, `a title is at most ${MAX_TITLE_CHARS} characters; put the rest in the summary or message`);
