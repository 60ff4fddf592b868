import { channelConfigShapes } from '../../config-shapes.js';
import { HeedError } from '../../errors.js';
import type { ChatChannelConfig, ChatPlatform } from './chat-channel.js';
import { discord } from './platforms/discord.js';
import { gchat } from './platforms/gchat.js';
import { github } from './platforms/github.js';
import { linear } from './platforms/linear.js';
import { slack } from './platforms/slack.js';
import { teams } from './platforms/teams.js';
import { telegram } from './platforms/telegram.js';

/**
 * The platforms on Chat SDK, by the name of their entry in `channels` (docs/channels.md). A platform is one
 * record (its adapter, how people answer there, and its config shape) in platforms/, and its line here.
 */
const builtIn: ChatPlatform<ChatChannelConfig>[] = [slack, telegram, github, linear, discord, teams, gchat];

export const chatPlatforms: { readonly [name: string]: ChatPlatform<ChatChannelConfig> | undefined } = {};
for (const platform of builtIn) addChatPlatform(platform);

/**
 * Adds a platform beside the built-in ones (docs/architecture.md): from then on `channels.<name>` is
 * checked against its config shape, and its endpoint, cards and answers work as the others'. Returns what
 * takes it off again.
 */
export function addChatPlatform<Config extends ChatChannelConfig>(platform: ChatPlatform<Config>): () => void {
  if (chatPlatforms[platform.name] || (platform.name as string) === 'state') {
    throw new HeedError('invalid_config', `A chat platform named "${platform.name}" is already known.`);
  }
  (chatPlatforms as Record<string, ChatPlatform<ChatChannelConfig>>)[platform.name] = platform;
  channelConfigShapes.set(platform.name, { config: platform.config, about: platform.about });
  // Takes it off again (a test's platform, once its tests are done).
  return () => {
    delete (chatPlatforms as Record<string, unknown>)[platform.name];
    channelConfigShapes.delete(platform.name);
  };
}
