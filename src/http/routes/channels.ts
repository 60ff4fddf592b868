import { z } from 'zod';
import { HeedError } from '../../errors.js';
import { readText } from '../errors.js';
import { defineRoute, type Route } from '../route.js';

/** Chat workspaces' endpoints (docs/channels.md): signed by the workspace, not by a bearer token. */
export const channelRoutes: Route[] = [
  defineRoute(
    {
      method: 'post',
      path: '/api/channels/slack/events',
      operationId: 'slackEvents',
      summary: "Slack's events and interactivity (signed by Slack)",
      description:
        'The Request URL of the Slack app for both Event Subscriptions (JSON) and Interactivity (form-encoded `payload=`). ' +
        "Authenticated by Slack's `X-Slack-Signature` over `v0:<timestamp>:<body>` with the signing secret, not by a bearer token; " +
        'a bad signature, or a timestamp over five minutes old, is 401 and changes nothing. Answers `url_verification` with its challenge. ' +
        'See docs/channels.md.',
      tag: 'Channels',
      bodyType: 'any',
      responses: {
        200: {
          description:
            'Received: `{ challenge }` for `url_verification`, `{ response_action: "errors", errors }` for a modal to correct, else empty.',
          schema: z.object({}).passthrough(),
        },
      },
      errors: ['unauthorized', 'not_found', 'invalid_request', 'payload_too_large'],
    },
    async ({ c, host }) => {
      const slack = host.notifier.channels.get('slack');
      if (!slack) throw new HeedError('not_found', 'Slack is not configured on this server (channels.slack).');
      // The raw bytes: the signature is over them, exactly as sent.
      const body = await readText(c.req.raw, 1024 * 1024);
      return slack.receive({ headers: c.req.raw.headers, body });
    },
  ),
];
