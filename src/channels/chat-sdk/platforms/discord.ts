import { z } from 'zod';
import { channelCommon, strict, booleanOption, httpUrl, secretString, wholeCount } from '../../../config-shapes.js';
import type { Adapter, Logger } from 'chat';
import type { ChatPlatform } from '../chat-channel.js';
import { listenToGateway } from './discord-gateway.js';
import { escapedTitleMarkdownCardText } from '../escape.js';

/** `channels.discord` (docs/channels.md): the keys every platform has, and Discord's own. */
export const discordConfig = strict({
  ...channelCommon,
  botToken: secretString("the bot's token").describe(
    "The bot's token: for posting, and the proof of Gateway events forwarded to `POST /api/channels/discord/events` (`x-discord-gateway-token`).",
  ),
  publicKey: secretString("the application's public key").describe(
    "The application's public key (hex): every interaction must carry its Ed25519 signature.",
  ),
  applicationId: secretString("the application's id").describe("The application's id, which a mention names."),
  userName: z.string({ error: 'expected a string' }).optional().describe("The bot's name, for mentions typed as text."),
  apiUrl: httpUrl
    .optional()
    .describe('The REST API base (default https://discord.com/api/v10; tests point it at a local server).'),
  gateway: z
    .union([booleanOption, z.strictObject({ leaseMs: wholeCount(100).optional() })], {
      error: 'expected true, false or { leaseMs }',
    })
    .optional()
    .describe(
      "Hold Discord's Gateway socket in this process (one instance of a deployment holds it, by a lease in the store renewed while held; `leaseMs`, default 30000, is how long another waits after the holder stops). Needs `npm i @discordjs/ws @discordjs/rest`. Off: a listener forwards Gateway events to the endpoint.",
    ),
});
export type DiscordChannelConfig = z.input<typeof discordConfig>;
declare module '../../../config-schema.js' {
  interface ChannelsConfig {
    /** A Discord bot: one agent talks in the threads that mention it (docs/channels.md). */
    discord?: DiscordChannelConfig;
  }
}

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
  config: discordConfig,
  about: 'A Discord bot: one agent talks in the threads that mention it (docs/channels.md).',
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
