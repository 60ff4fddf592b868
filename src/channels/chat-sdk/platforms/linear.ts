import { z } from 'zod';
import { channelCommon, strict, httpUrl, secretString } from '../../../config-shapes.js';
import type { Adapter, Logger } from 'chat';
import type { ChatPlatform } from '../chat-channel.js';
import { escapedTitleMarkdownCardText } from '../escape.js';

/** `channels.linear` (docs/channels.md): the keys every platform has, and Linear's own. */
export const linearConfig = strict({
  ...channelCommon,
  apiKey: secretString('an API key').describe("A Linear API key of the bot's user, for posting and editing comments."),
  webhookSecret: secretString('the webhook signing secret').describe(
    "The webhook's signing secret: every request to `POST /api/channels/linear/events` must carry its `linear-signature`, at most 60 s old.",
  ),
  userName: secretString("the bot's name").describe("The bot user's name, which a mention names."),
  apiUrl: httpUrl
    .optional()
    .describe('The GraphQL endpoint (default https://api.linear.app/graphql; tests point it at a local server).'),
});
export type LinearChannelConfig = z.input<typeof linearConfig>;
declare module '../../../config-schema.js' {
  interface ChannelsConfig {
    /** A Linear bot: one agent talks in the comment threads that mention it (docs/channels.md). */
    linear?: LinearChannelConfig;
  }
}

type LinearModule = typeof import('@chat-adapter/linear');

/**
 * Linear (docs/channels.md): a bot in issue comment threads; a mention of its name starts or continues the
 * thread's conversation; requests are markdown comments, answered by comment commands from anyone
 * `access` allows. The webhook's proof is `linear-signature` with a `webhookTimestamp` at most 60 s old;
 * Linear's own handler answers 400 to a bad or stale one, which Heed answers 401.
 */
export const linear: ChatPlatform<LinearChannelConfig> = {
  name: 'linear',
  title: 'Linear',
  package: '@chat-adapter/linear',
  config: linearConfig,
  about: 'A Linear bot: one agent talks in the comment threads that mention it (docs/channels.md).',
  adapter: (module, config, logger: Logger): Adapter =>
    (module as LinearModule).createLinearAdapter({
      apiKey: config.apiKey,
      webhookSecret: config.webhookSecret,
      userName: config.userName,
      mode: 'comments',
      ...(config.apiUrl ? { apiUrl: config.apiUrl } : {}),
      logger,
    }),
  typed: { how: 'Answer with a reply in this thread:', commands: true, buttons: false },
  cardText: escapedTitleMarkdownCardText,
  // Linear's handler answers 400 to a missing, forged or stale signature (and to a body it cannot read).
  badProof: (response) => response.status === 400,
};
