/**
 * The pieces config shapes are built of, shared by src/config-schema.ts and the modules that own a shape
 * of their own (each chat platform's file). It imports nothing of Heed's at run time, so any module may
 * build its shape from it without an import circle.
 */
import { z } from 'zod';
import type { ActionRecord, ConversationRecord } from './types.js';

/** An object that refuses keys it does not know, naming the ones it does. */
export function strict<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown key (expected one of: ${known})` : undefined),
  });
}

/** A function, checked for being one (its signature is the type's word). */
export const fn = <F extends (...args: never[]) => unknown = (...args: never[]) => unknown>(what: string) =>
  z.custom<F>((value) => typeof value === 'function', { error: `expected ${what} (a function)` });

/** An object made by a library, checked for the methods Heed calls on it. */
export const withMethods = <T>(error: string, ...methods: string[]) =>
  z.custom<T>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      methods.every((name) => typeof (value as Record<string, unknown>)[name] === 'function'),
    { error },
  );

export const wholeCount = (minimum: number) =>
  z.number({ error: 'expected a number' }).int('expected a whole number').min(minimum, `expected at least ${minimum}`);
export const duration = z.number({ error: 'expected a number' }).min(0, 'expected 0 or more');
export const booleanOption = z.boolean({ error: 'expected true or false' });
export const httpUrl = z
  .string({ error: 'expected a URL' })
  .refine((value) => /^https?:\/\/[^\s]+$/i.test(value) && URL.canParse(value), 'expected an http:// or https:// URL');
export const secretString = (what: string) => z.string({ error: 'expected a string' }).min(1, `expected ${what}`);

/** A person of a chat platform, as `access` and `userId` see them (docs/channels.md). */
export interface ChannelUser {
  platform: string;
  id: string;
  userName?: string;
  email?: string;
}
export type ChannelAccess = (
  user: ChannelUser,
  target: { conversation: ConversationRecord; action: ActionRecord },
) => boolean | Promise<boolean>;
export type ChannelUserId = (user: ChannelUser) => string | undefined | null | Promise<string | undefined | null>;

/** The keys every chat platform's entry of `channels` has, besides its own (docs/channels.md). */
export const channelCommon = {
  agent: z
    .string({ error: 'expected an agent name' })
    .min(1, 'expected an agent name')
    .describe('The agent that answers there.'),
  access: fn<ChannelAccess>('access({ platform, id, userName?, email? }, { conversation, action })')
    .optional()
    .describe('Who may answer a request posted in a thread. Default: anyone in the thread.'),
  userId: fn<ChannelUserId>('userId({ platform, id, userName?, email? })')
    .optional()
    .describe(
      'Who a person of the workspace is in Heed: their Heed user id (undefined: not known). Their conversations are then listed for that person, and requests posted there are answered as them. Default: by the address the platform gives, where it gives one.',
    ),
};
export type ChannelCommonConfig = z.input<ReturnType<typeof strict<typeof channelCommon>>>;

/** A chat platform's entry of `channels`: its shape (with `channelCommon`) and its doc line. */
export interface ChannelConfigShape {
  config: z.ZodObject;
  about: string;
}

/**
 * The chat platforms' entries of `channels`, by name. Each platform registers its own (its code lives a
 * layer above the config's: src/channels/chat-sdk/platforms.ts), and the config's check reads them here.
 */
export const channelConfigShapes = new Map<string, ChannelConfigShape>();
