import type { Adapter, Logger } from 'chat';
import type { GithubChannelConfig } from '../../../config-schema.js';
import { HeedError } from '../../../errors.js';
import type { ChatPlatform } from '../chat-channel.js';
import { escapedTitleMarkdownCardText } from '../escape.js';

type GithubModule = typeof import('@chat-adapter/github');

/**
 * GitHub (docs/channels.md): a bot in issues and pull requests; a mention of its login starts or continues
 * the thread's conversation; requests are comments in markdown, answered by comment commands
 * (`/approve`, `/deny <why>`, `/answer 2`, `/answer qty=3`) from anyone `access` allows. The webhook's
 * proof is `X-Hub-Signature-256`, an HMAC of the body with the webhook secret.
 */
export const github: ChatPlatform<GithubChannelConfig> = {
  name: 'github',
  title: 'GitHub',
  package: '@chat-adapter/github',
  adapter(module, config, logger: Logger): Adapter {
    const { createGitHubAdapter } = module as GithubModule;
    const base = {
      webhookSecret: config.webhookSecret,
      userName: config.userName,
      ...(config.apiUrl ? { apiUrl: config.apiUrl.replace(/\/+$/, '') } : {}),
      logger,
    };
    if (config.token) return createGitHubAdapter({ ...base, token: config.token });
    if (config.appId && config.privateKey)
      return createGitHubAdapter(
        config.installationId === undefined
          ? { ...base, appId: config.appId, privateKey: config.privateKey }
          : { ...base, appId: config.appId, privateKey: config.privateKey, installationId: config.installationId },
      );
    throw new HeedError(
      'invalid_config',
      "channels.github needs a `token`, or a GitHub App's `appId` and `privateKey`.",
    );
  },
  typed: { how: 'Answer with a comment:', commands: true, buttons: false },
  cardText: escapedTitleMarkdownCardText,
};
