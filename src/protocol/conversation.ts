import { z } from 'zod';
import { isoTime, jsonValue } from './values.js';

/** A conversation as clients see it (and as an approval policy's approvers function is given it). */
export const conversationStatus = z.enum(['idle', 'running', 'requires_action']);

export const conversationView = z.strictObject({
  id: z.string(),
  agent: z.string(),
  ownerId: z.string().nullable(),
  channel: z.string().nullable(),
  status: conversationStatus,
  version: z.number().int(),
  lastEventSeq: z
    .number()
    .int()
    .describe('Number of the last event in the log: follow the stream from here to see only what comes next.'),
  metadata: z.record(z.string(), jsonValue).nullable(),
  title: z
    .string()
    .nullable()
    .describe(
      'What the conversation is about: `metadata.title` (set by its creator, or by a tool with `ctx.setTitle`), else null until its first message names it.',
    ),
  createdAt: isoTime,
  updatedAt: isoTime,
  parent: z
    .strictObject({ conversationId: z.string(), toolCallId: z.string() })
    .optional()
    .describe("In a conversation's snapshot: the conversation whose `agent_<name>` call started this one."),
  children: z
    .array(
      z.strictObject({
        conversationId: z.string(),
        agent: z.string(),
        toolCallId: z.string(),
        status: conversationStatus,
      }),
    )
    .optional()
    .describe("In a conversation's snapshot: the child conversations its calls of other agents started, in order."),
});

export type ConversationView = z.output<typeof conversationView>;

/** Platforms' own spellings; any other is shown with its first letter capitalised. */
const PLATFORMS: Record<string, string> = {
  slack: 'Slack',
  teams: 'Microsoft Teams',
  discord: 'Discord',
  telegram: 'Telegram',
  github: 'GitHub',
  linear: 'Linear',
  gchat: 'Google Chat',
};

/**
 * The chat workspace a channel conversation lives in, as a person names it: `slack:T1:C1:17…` is "Slack".
 * Undefined for a conversation of no channel.
 */
export function channelPlatform(channel: string | null | undefined): string | undefined {
  if (!channel) return undefined;
  const name = channel.split(':')[0].trim();
  if (!name) return 'its channel';
  return Object.hasOwn(PLATFORMS, name) ? PLATFORMS[name] : name.charAt(0).toUpperCase() + name.slice(1);
}

/** Longest title kept; a longer one is cut (a tool's `ctx.setTitle`, the first message). */
export const MAX_TITLE_CHARS = 120;
/** A title taken from the first message is cut shorter, to read as a name rather than the message. */
const FIRST_MESSAGE_TITLE_CHARS = 80;

/** The conversation's title: `metadata.title` when it is a string with some text, else null. */
export function conversationTitle(metadata: Record<string, unknown> | null): string | null {
  const title = metadata?.title;
  if (typeof title !== 'string') return null;
  const line = oneLineTitle(title, MAX_TITLE_CHARS);
  return line === '' ? null : line;
}

/** The title a first message gives a conversation that has none: its text on one line, cut at a word. */
export function titleFromMessage(text: string): string {
  return oneLineTitle(text, FIRST_MESSAGE_TITLE_CHARS);
}

function oneLineTitle(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  // Not between the two halves of a character outside the BMP (an emoji).
  const cut = line.slice(0, /[\uD800-\uDBFF]/.test(line[max - 2] ?? '') ? max - 2 : max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The most characters a message may hold: one sent by a person, and a task one agent gives another. */
export const MAX_MESSAGE_CHARS = 100_000;

/** Why Heed would not record `content` as a message (blank, or over 100,000 characters); undefined when it would. */
export function messageContentProblem(content: unknown, field = 'content'): string | undefined {
  if (typeof content !== 'string' || content.trim() === '') return `A message needs some text in "${field}".`;
  if (content.length > MAX_MESSAGE_CHARS) return `A message may hold at most ${MAX_MESSAGE_CHARS} characters.`;
  return undefined;
}
