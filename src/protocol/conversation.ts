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
  lastEventSeq: z.number().int().describe('Number of the last event in the log: follow the stream from here to see only what comes next.'),
  metadata: z.record(z.string(), jsonValue).nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
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
