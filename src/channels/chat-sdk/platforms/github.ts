import { z } from 'zod';
import { channelCommon, strict, httpUrl, secretString } from '../../../config-shapes.js';
import type { Adapter, Logger } from 'chat';
import { HeedError } from '../../../errors.js';
import type { ChatPlatform } from '../chat-channel.js';
import { escapedTitleMarkdownCardText } from '../escape.js';

/** `channels.github` (docs/channels.md): the keys every platform has, and Github's own. */
export const githubConfig = strict({
  ...channelCommon,
  token: z
    .string({ error: 'expected a string' })
    .min(1, 'expected a token')
    .optional()
    .describe(
      'A token (a personal access token, or an installation token) for posting comments; or the three GitHub App fields.',
    ),
  appId: z.string({ error: 'expected a string' }).optional().describe("The GitHub App's id (in place of `token`)."),
  privateKey: z.string({ error: 'expected a string' }).optional().describe("The GitHub App's private key (PEM)."),
  installationId: z
    .number({ error: 'expected a number' })
    .int()
    .optional()
    .describe("The App's installation id; absent, each webhook's own is used."),
  webhookSecret: secretString('the webhook secret').describe(
    "The webhook's secret: every request to `POST /api/channels/github/events` must carry its `X-Hub-Signature-256`.",
  ),
  userName: secretString("the bot's login").describe(
    "The bot's login (`heed-bot`, or `my-app[bot]`), which a mention names.",
  ),
  apiUrl: httpUrl
    .optional()
    .describe('The REST API base (default https://api.github.com; GitHub Enterprise, or a local server in tests).'),
});
export type GithubChannelConfig = z.input<typeof githubConfig>;
declare module '../../../config-schema.js' {
  interface ChannelsConfig {
    /** A GitHub bot: one agent talks in the issues and pull requests that mention it (docs/channels.md). */
    github?: GithubChannelConfig;
  }
}

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
  config: githubConfig,
  about: 'A GitHub bot: one agent talks in the issues and pull requests that mention it (docs/channels.md).',
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
