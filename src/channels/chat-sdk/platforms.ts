import type { ChannelsConfig } from '../../config.js';
import type { ChannelPlatform } from '../../protocol/action-base.js';
import type { ChatChannelConfig, ChatPlatform } from './chat-channel.js';
import { discord } from './platforms/discord.js';
import { gchat } from './platforms/gchat.js';
import { github } from './platforms/github.js';
import { linear } from './platforms/linear.js';
import { slack, type SlackChatConfig } from './platforms/slack.js';
import { teams } from './platforms/teams.js';
import { telegram } from './platforms/telegram.js';

/**
 * The platforms on Chat SDK, by the name of their entry in `channels` (docs/channels.md). Adding one is
 * a file in platforms/, its config shape (src/config-schema.ts) and its line here.
 */
export const chatPlatforms: {
  readonly [K in Exclude<keyof ChannelsConfig, 'slack' | 'state'>]-?: ChatPlatform<NonNullable<ChannelsConfig[K]>>;
} & {
  // Its entry's `access` takes a Slack user id: `configOf` makes it the seam's.
  readonly slack: ChatPlatform<SlackChatConfig>;
} & {
  readonly [name: string]: ChatPlatform<ChatChannelConfig> | undefined;
} = {
  slack,
  telegram,
  github,
  linear,
  discord,
  teams,
  gchat,
};

export type ChatPlatformName = Exclude<keyof ChannelsConfig, 'state'> & ChannelPlatform;
