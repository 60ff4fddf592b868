import type { Adapter, Logger } from 'chat';
import type { LinearChannelConfig } from '../../../config-schema.js';
import type { ChatPlatform } from '../chat-channel.js';
import { escapedTitleMarkdownCardText } from '../escape.js';

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
