import type { Adapter, Logger } from 'chat';
import type { DiscordChannelConfig } from '../../../config-schema.js';
import type { ChatPlatform } from '../chat-channel.js';
import { listenToGateway } from './discord-gateway.js';
import { escapedTitleMarkdownCardText } from '../escape.js';

type DiscordModule = typeof import('@chat-adapter/discord');

/**
 * Discord (docs/channels.md): a bot in servers and direct messages. Messages (mentions, replies) arrive over
 * the Gateway: held by Heed itself with `gateway: true` (discord-gateway.ts), else forwarded to Heed's
 * endpoint with the bot token (`x-discord-gateway-token`) as Chat SDK forwards them; either way they take
 * the endpoint's one path. Button clicks arrive as HTTP interactions signed with Ed25519. Requests are messages
 * with buttons; a typed answer is a reply to the posted request.
 */
export const discord: ChatPlatform<DiscordChannelConfig> = {
  name: 'discord',
  title: 'Discord',
  package: '@chat-adapter/discord',
  adapter: (module, config, logger: Logger): Adapter =>
    (module as DiscordModule).createDiscordAdapter({
      botToken: config.botToken,
      publicKey: config.publicKey,
      applicationId: config.applicationId,
      ...(config.userName ? { userName: config.userName } : {}),
      ...(config.apiUrl ? { apiUrl: config.apiUrl.replace(/\/+$/, '') } : {}),
      logger,
    }),
  typed: { how: 'Or reply to this message with', commands: false, buttons: true },
  cardText: escapedTitleMarkdownCardText,
  // Forwarded Gateway messages are claimed by Chat SDK's own dedupe before Heed records them.
  harmlessClaim: (key) => key.startsWith('dedupe:discord:'),
  // Discord's mention is by id; a plain `@name` would reach nobody.
  mention: (user) => `<@${user.id}>`,
  listen: listenToGateway,
  repliedTo(raw) {
    const message = raw as { message_reference?: { message_id?: string } };
    return message.message_reference?.message_id;
  },
};
