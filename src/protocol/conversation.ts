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
