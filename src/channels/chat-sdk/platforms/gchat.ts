import type { Adapter, AdapterPostableMessage, Logger, Message, RawMessage, WebhookOptions } from 'chat';
import type { GchatChannelConfig } from '../../../config-schema.js';
import { importOptional } from '../../../optional-dependency.js';
import type { FormField } from '../cards.js';
import type { ChatPlatform, RequestMessage } from '../chat-channel.js';
import { GOOGLE_CHAT_JWKS, GOOGLE_OIDC_JWKS, googleChatVerifier } from './gchat-token.js';
import { googleChatCardText } from '../escape.js';

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
