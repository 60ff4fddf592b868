import { z } from 'zod';
import { channelPlatforms } from '../../protocol/action-base.js';
import { HeedError } from '../../errors.js';
import { readText } from '../errors.js';
import { defineRoute, type Route } from '../route.js';

/** Chat workspaces' endpoints (docs/channels.md): signed by the workspace, not by a bearer token. */
export const channelRoutes: Route[] = [
  defineRoute(
    {
      method: 'post',
      path: '/api/channels/:platform/events',
      operationId: 'channelEvents',
      summary: "A chat platform's webhook (signed by the platform)",
      description:
        'The webhook URL of a platform configured under `channels.<platform>` (Slack, Telegram, GitHub, Linear, Discord, Teams, Google Chat), ' +
        "authenticated by the platform's own proof, not by a bearer token: Slack's `X-Slack-Signature` over `v0:<timestamp>:<body>` with the signing secret " +
        "(a timestamp over five minutes old is refused), Telegram's `X-Telegram-Bot-Api-Secret-Token`, GitHub's " +
        "`X-Hub-Signature-256`, Linear's `linear-signature`, Discord's Ed25519 signature, Teams' Bot Framework JWT, Google Chat's Google-signed JWT. A bad or stale proof " +
        'is 401 and changes nothing. Each message is recorded before the answer; a failure to record is a 5xx, which the platform retries. ' +
        'Slack sends events (JSON) and interactivity (form-encoded `payload=`) to `/api/channels/slack/events`; it is answered `{ challenge }` for ' +
        '`url_verification` and `{ response_action: "errors", errors }` for a modal to correct. ' +
        'See docs/channels.md.',
      tag: 'Channels',
      bodyType: 'any',
      params: z.object({
        platform: z
          .string()
          .min(1)
          .max(40)
          .describe(
            `The platform, as named under \`channels\`: ${channelPlatforms.map((name) => `\`${name}\``).join(', ')}.`,
          ),
      }),
      responses: {
        200: {
          description:
            "Received: the platform's own acknowledgement (Slack: `{ challenge }`, or a modal's errors, or empty).",
          schema: z.object({}).passthrough(),
        },
      },
      errors: ['unauthorized', 'not_found', 'invalid_request', 'payload_too_large', 'internal_error'],
    },
    async ({ c, host, params }) => {
      const channel = host.notifier.channels.get(params.platform);
      if (!channel)
        throw new HeedError(
          'not_found',
          `This platform is not configured on this server (channels.${params.platform}).`,
        );
      // The raw bytes: the proof is over them, exactly as sent.
      const body = await readText(c.req.raw, 1024 * 1024);
      return channel.receive({ headers: c.req.raw.headers, body });
    },
  ),
];
