import { z } from 'zod';
import { channelCommon, strict, httpUrl, secretString } from '../../../config-shapes.js';
import type { Adapter, Logger } from 'chat';
import type { ChatPlatform } from '../chat-channel.js';
import { markdownCardText } from '../escape.js';

/** `channels.telegram` (docs/channels.md): the keys every platform has, and Telegram's own. */
export const telegramConfig = strict({
  ...channelCommon,
  botToken: secretString("the bot's token from BotFather").describe("The bot's token from BotFather."),
  secretToken: secretString('the webhook secret token').describe(
    'The `secret_token` given to `setWebhook`: every request to `POST /api/channels/telegram/events` must carry it in `X-Telegram-Bot-Api-Secret-Token`.',
  ),
  userName: z
    .string({ error: 'expected a string' })
    .optional()
    .describe("The bot's @username (without @), which a mention names. Default: read with `getMe`."),
  apiUrl: httpUrl
    .optional()
    .describe('The Bot API base (default https://api.telegram.org; tests point it at a local server).'),
});
export type TelegramChannelConfig = z.input<typeof telegramConfig>;
declare module '../../../config-schema.js' {
  interface ChannelsConfig {
    /** A Telegram bot: one agent talks in the chats it is in (docs/channels.md). */
    telegram?: TelegramChannelConfig;
  }
}

type TelegramModule = typeof import('@chat-adapter/telegram');

/**
 * Telegram (docs/channels.md): a bot in groups and direct chats; requests as messages with an inline
 * keyboard; a typed answer is a reply to the posted request. The webhook's proof is the secret token
 * given to `setWebhook`, in `X-Telegram-Bot-Api-Secret-Token`.
 */
export const telegram: ChatPlatform<TelegramChannelConfig> = {
  name: 'telegram',
  title: 'Telegram',
  package: '@chat-adapter/telegram',
  config: telegramConfig,
  about: 'A Telegram bot: one agent talks in the chats it is in (docs/channels.md).',
  adapter: (module, config, logger: Logger): Adapter =>
    (module as TelegramModule).createTelegramAdapter({
      botToken: config.botToken,
      secretToken: config.secretToken,
      // Webhooks only: Heed's endpoint receives updates; it never polls, nor asks Telegram which mode it is in.
      mode: 'webhook',
      ...(config.userName ? { userName: config.userName } : {}),
      ...(config.apiUrl ? { apiUrl: config.apiUrl } : {}),
      logger,
    }),
  typed: { how: 'Or reply to this message with', commands: false, buttons: true },
  cardText: markdownCardText,
  // The adapter claims each update id before its message is handled; Heed dedupes by message id once recorded.
  harmlessClaim: (key) => key.startsWith('telegram:webhook-update:'),
  repliedTo(raw) {
    const message = raw as { chat?: { id?: number | string }; reply_to_message?: { message_id?: number } };
    const replied = message.reply_to_message?.message_id;
    return replied === undefined || message.chat?.id === undefined ? undefined : `${message.chat.id}:${replied}`;
  },
};
