import { z } from 'zod';
import { channelCommon, strict, fn, httpUrl, secretString } from '../../../config-shapes.js';
import type { Adapter, AdapterPostableMessage, Logger, Message, RawMessage, WebhookOptions } from 'chat';
import { importOptional } from '../../../optional-dependency.js';
import type { FormField } from '../cards.js';
import type { ChatPlatform, RequestMessage } from '../chat-channel.js';
import { GOOGLE_CHAT_JWKS, GOOGLE_OIDC_JWKS, googleChatVerifier } from './gchat-token.js';
import { googleChatCardText } from '../escape.js';

/** `channels.gchat` (docs/channels.md): the keys every platform has, and Google Chat's own. */
export const gchatConfig = strict({
  ...channelCommon,
  credentials: z
    .object(
      {
        client_email: secretString("the service account's email").describe("The service account's email."),
        private_key: secretString("the service account's private key").describe(
          "The service account's private key (PEM).",
        ),
        project_id: z.string({ error: 'expected a string' }).optional().describe("The service account's project id."),
      },
      { error: 'expected a service account key' },
    )
    .optional()
    .describe(
      "The Chat app's service account key (the JSON file's `client_email` and `private_key`), for posting and editing messages; or `token`.",
    ),
  token: fn<() => string | Promise<string>>('token()')
    .optional()
    .describe(
      'Gives the OAuth access token (scope `chat.bot`) for posting, in place of signing one with `credentials`.',
    ),
  endpointUrl: httpUrl.describe(
    "The URL Google Chat calls (`https://…/api/channels/gchat/events`, as in the app's configuration): cards' buttons call it back, and it is the audience of endpoint-URL tokens.",
  ),
  googleChatProjectNumber: z
    .string({ error: 'expected a string' })
    .regex(/^\d+$/, 'expected a project number (digits)')
    .optional()
    .describe(
      "The Google Cloud project number, when the app's authentication audience is *Project number*: the audience of the tokens `chat@system.gserviceaccount.com` signs.",
    ),
  workspaceAddOnServiceAccountEmail: z
    .string({ error: 'expected a string' })
    .optional()
    .describe(
      'A Chat app built as a Workspace add-on: its own `service-<project number>@gcp-sa-gsuiteaddons.iam.gserviceaccount.com`, the email its endpoint-URL tokens carry.',
    ),
  chatJwksUrl: httpUrl
    .default('https://www.googleapis.com/service_accounts/v1/jwk/chat@system.gserviceaccount.com')
    .describe(
      'The keys of `chat@system.gserviceaccount.com`, which sign project-number tokens (tests point it at a local server).',
    ),
  googleJwksUrl: httpUrl
    .default('https://www.googleapis.com/oauth2/v3/certs')
    .describe("Google's OpenID keys, which sign endpoint-URL tokens (tests point it at a local server)."),
  botUserId: z
    .string({ error: 'expected a string' })
    .optional()
    .describe("The app's user resource name (`users/…`): tells its own messages and mentions from other apps'."),
  userName: z.string({ error: 'expected a string' }).optional().describe("The app's name, for mentions typed as text."),
  apiUrl: httpUrl
    .optional()
    .describe('The Chat API root (default https://chat.googleapis.com/; tests point it at a local server).'),
}).refine((value) => value.credentials !== undefined || value.token !== undefined, {
  message: 'expected `credentials` or `token`',
});
export type GchatChannelConfig = z.input<typeof gchatConfig>;
declare module '../../../config-schema.js' {
  interface ChannelsConfig {
    /** A Google Chat app: one agent talks in the spaces and threads that mention it (docs/channels.md). */
    gchat?: GchatChannelConfig;
  }
}

type GchatModule = typeof import('@chat-adapter/gchat');
type GchatEvent = import('@chat-adapter/gchat').GoogleChatEvent;

/**
 * Google Chat (docs/channels.md): a Chat app with an HTTP endpoint, in spaces, threads and direct messages,
 * its events in the Workspace add-on shape Chat SDK's adapter reads. Each request carries a Google-signed
 * JWT that Heed checks itself (gchat-token.ts), against key URLs the config can point elsewhere. Requests
 * are cardsV2 cards: buttons call the endpoint back, and typed answers are inputs in the card itself
 * (`textInput`, `selectionInput`, `dateTimePicker`), sent with the click of Submit (or Allow / Deny).
 * Chat SDK's adapter has no dialogs, so there are none.
 */
export const gchat: ChatPlatform<GchatChannelConfig> = {
  name: 'gchat',
  title: 'Google Chat',
  package: '@chat-adapter/gchat',
  config: gchatConfig,
  about: 'A Google Chat app: one agent talks in the spaces and threads that mention it (docs/channels.md).',
  async adapter(module, config, logger: Logger): Promise<Adapter> {
    const { GoogleChatAdapter, cardToGoogleCard } = module as GchatModule;
    const verify = googleChatVerifier({
      endpointUrl: config.endpointUrl,
      ...(config.googleChatProjectNumber ? { projectNumber: config.googleChatProjectNumber } : {}),
      ...(config.workspaceAddOnServiceAccountEmail
        ? { addOnServiceAccountEmail: config.workspaceAddOnServiceAccountEmail }
        : {}),
      chatJwksUrl: config.chatJwksUrl ?? GOOGLE_CHAT_JWKS,
      googleJwksUrl: config.googleJwksUrl ?? GOOGLE_OIDC_JWKS,
    });

    /**
     * Chat SDK's Google Chat adapter, with Heed's token check in place of its own (which reads Google's key
     * URLs, fixed in the adapter), no Pub/Sub, mentions read from Google's own annotations, and a request's
     * card posted with its form (cards.ts has no inputs).
     */
    class HeedGoogleChatAdapter extends GoogleChatAdapter {
      override async handleWebhook(request: Request, options?: WebhookOptions): Promise<Response> {
        if (!(await verify(request))) return new Response('Unauthorized', { status: 401 });
        let event: GchatEvent;
        try {
          event = JSON.parse(await request.text()) as GchatEvent;
        } catch {
          return new Response('Invalid JSON', { status: 400 });
        }
        // What the adapter's own handleWebhook does once a direct event is proven: a click, or a message.
        if (event.chat?.buttonClickedPayload || event.commonEventObject?.invokedFunction)
          this.handleCardClick(event, options);
        else if (event.chat?.messagePayload) this.handleMessageEvent(event, options);
        return Response.json({});
      }

      // Heed reads a space's messages from the mentions Google sends, not from Workspace Events over Pub/Sub.
      override async onThreadSubscribe(): Promise<void> {}

      protected override parseGoogleChatMessage(event: GchatEvent, threadId: string): Message<unknown> {
        const message = super.parseGoogleChatMessage(event, threadId);
        const raw = event.chat?.messagePayload?.message;
        // Google sends a space's messages to an app only when they mention it; `argumentText` is the text
        // without that mention, whatever name the app has in the space.
        const mentioned = raw?.annotations?.some(
          (entry) =>
            entry.type === 'USER_MENTION' &&
            entry.userMention?.user.type === 'BOT' &&
            (!config.botUserId || entry.userMention.user.name === config.botUserId),
        );
        if (mentioned) {
          message.isMention = true;
          if (raw?.argumentText !== undefined) message.text = raw.argumentText.trim();
        }
        return message;
      }

      override async postMessage(threadId: string, message: AdapterPostableMessage): Promise<RawMessage<unknown>> {
        const form = (message as Partial<RequestMessage>).form;
        if (!form) return super.postMessage(threadId, message);
        const { card } = message as RequestMessage;
        const { spaceName, threadName } = this.decodeThreadId(threadId);
        const googleCard = cardToGoogleCard(card, { cardId: `heed-${Date.now()}`, endpointUrl: this.endpointUrl });
        // The inputs go just above the buttons (their Submit, or Allow / Deny), after the request's text.
        const sections = googleCard.card.sections as { widgets: unknown[] }[];
        const section = [...sections].reverse().find((entry) => entry.widgets.some(isButtons)) ?? sections.at(-1);
        const at = section?.widgets.findIndex(isButtons) ?? -1;
        if (section) section.widgets.splice(at === -1 ? section.widgets.length : at, 0, ...form.map(chatInput));
        else sections.push({ widgets: form.map(chatInput) });
        const response = await this.chatApi.spaces.messages.create({
          parent: spaceName,
          ...(threadName ? { messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD' } : {}),
          requestBody: { cardsV2: [googleCard], ...(threadName ? { thread: { name: threadName } } : {}) },
        });
        return { id: response.data.name ?? '', threadId, raw: response.data };
      }
    }

    const auth = config.token ? await tokenAuth(config.token) : undefined;
    return new HeedGoogleChatAdapter({
      ...(auth ? { auth } : { credentials: config.credentials! }),
      endpointUrl: config.endpointUrl,
      userName: config.userName ?? 'heed',
      ...(config.botUserId ? { botUserId: config.botUserId } : {}),
      ...(config.apiUrl ? { apiUrl: config.apiUrl } : {}),
      logger,
    } as ConstructorParameters<GchatModule['GoogleChatAdapter']>[0]);
  },
  typed: { how: 'Or fill in the form and press Submit', commands: false, buttons: true, forms: true },
  cardText: googleChatCardText,
  formValues(raw) {
    const inputs = (raw as GchatEvent).commonEventObject?.formInputs as
      | Record<string, { stringInputs?: { value?: string[] }; dateInput?: { msSinceEpoch?: string | number } }>
      | undefined;
    const values: Record<string, unknown> = Object.create(null);
    for (const [name, input] of Object.entries(inputs ?? {})) {
      if (input.stringInputs?.value) values[name] = input.stringInputs.value.join(',');
      else if (input.dateInput?.msSinceEpoch !== undefined)
        values[name] = new Date(Number(input.dateInput.msSinceEpoch)).toISOString().slice(0, 10);
    }
    return values;
  },
};

/**
 * An auth client for the Chat API that asks `token()` for each call's bearer token, instead of signing a
 * service account's assertion with Google (Chat SDK's adapter takes any google-auth-library client).
 */
async function tokenAuth(token: () => string | Promise<string>): Promise<unknown> {
  const { auth } = await importOptional<typeof import('@googleapis/chat')>(
    '@googleapis/chat',
    'The Google Chat channel',
  );
  const client = new auth.OAuth2();
  // Expired as soon as it is set, so every call asks `token()` again.
  client.refreshHandler = async () => ({ access_token: await token(), expiry_date: Date.now() });
  return client;
}

function isButtons(widget: unknown): boolean {
  return typeof widget === 'object' && widget !== null && 'buttonList' in widget;
}

/** A form field as a Google Chat card widget. */
function chatInput(field: FormField): Record<string, unknown> {
  const label = field.label;
  switch (field.type) {
    case 'choice':
    case 'select': {
      if (!field.options?.length) break;
      const chosen = new Set(field.value?.split(',') ?? []);
      return {
        selectionInput: {
          name: field.name,
          label,
          type: field.multiple ? 'CHECK_BOX' : field.options.length <= 4 ? 'RADIO_BUTTON' : 'DROPDOWN',
          items: field.options.map((option) => ({
            text: option.label,
            value: option.value,
            selected: chosen.has(option.value),
          })),
        },
      };
    }
    case 'boolean':
      return {
        selectionInput: {
          name: field.name,
          label,
          type: 'RADIO_BUTTON',
          items: [
            { text: 'Yes', value: 'true', selected: field.value === 'true' },
            { text: 'No', value: 'false', selected: field.value === 'false' },
          ],
        },
      };
    case 'date':
      return {
        dateTimePicker: {
          name: field.name,
          label,
          type: 'DATE_ONLY',
          ...(field.value ? { valueMsEpoch: String(Date.parse(field.value)) } : {}),
        },
      };
    default:
      break;
  }
  return {
    textInput: {
      name: field.name,
      label,
      type: field.type === 'textarea' ? 'MULTIPLE_LINE' : 'SINGLE_LINE',
      ...(field.value !== undefined ? { value: field.value } : {}),
      ...(field.placeholder ? { hintText: field.placeholder } : {}),
    },
  };
}
