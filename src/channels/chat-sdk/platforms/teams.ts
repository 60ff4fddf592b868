import { z } from 'zod';
import { channelCommon, strict, fn, httpUrl, secretString } from '../../../config-shapes.js';
import type { Adapter, AdapterPostableMessage, Logger, RawMessage } from 'chat';
import type { FormField } from '../cards.js';
import type { ChatPlatform, RequestMessage } from '../chat-channel.js';
import { BOT_FRAMEWORK_OPENID_METADATA, botFrameworkVerifier } from './teams-token.js';
import { adaptiveCardText } from '../escape.js';

/** `channels.teams` (docs/channels.md): the keys every platform has, and Teams's own. */
export const teamsConfig = strict({
  ...channelCommon,
  appId: secretString("the bot's Microsoft App ID").describe(
    "The Azure Bot's Microsoft App ID: the audience every Bot Framework token to `POST /api/channels/teams/events` must name.",
  ),
  appPassword: z
    .string({ error: 'expected a string' })
    .min(1, 'expected a client secret')
    .optional()
    .describe("The app's client secret, for the tokens Heed posts with (or `token`; default `TEAMS_APP_PASSWORD`)."),
  token: fn<(scope: string | string[], tenantId?: string) => string | Promise<string>>('token(scope)')
    .optional()
    .describe('Gives the bearer token for posting to the Bot Framework, in place of fetching one with `appPassword`.'),
  tenantId: z
    .string({ error: 'expected a string' })
    .optional()
    .describe("The app's tenant, for a single-tenant app. Default: `TEAMS_APP_TENANT_ID`, else a multi-tenant app."),
  openIdMetadataUrl: httpUrl
    .default('https://login.botframework.com/v1/.well-known/openidconfiguration')
    .describe(
      'The OpenID metadata whose `issuer` and `jwks_uri` sign the Bot Framework tokens (sovereign clouds have their own; tests point it at a local server).',
    ),
  userName: z
    .string({ error: 'expected a string' })
    .optional()
    .describe("The bot's name, for mentions typed as text. Default: the name a mention's entity gives."),
  apiUrl: httpUrl
    .optional()
    .describe(
      "Sends every reply to this connector URL instead of each conversation's own `serviceUrl` (a gateway or an emulator).",
    ),
});
export type TeamsChannelConfig = z.input<typeof teamsConfig>;
declare module '../../../config-schema.js' {
  interface ChannelsConfig {
    /** A Microsoft Teams bot: one agent talks in the threads and chats that mention it (docs/channels.md). */
    teams?: TeamsChannelConfig;
  }
}

type TeamsModule = typeof import('@chat-adapter/teams');

/**
 * Microsoft Teams (docs/channels.md): a bot of an Azure Bot resource, in channels, group chats and personal
 * chats. Each request from the Bot Framework carries a JWT that Heed checks against the OpenID metadata at
 * `openIdMetadataUrl` (teams-token.ts). Requests are Adaptive Cards: buttons are `Action.Submit`, and typed
 * answers are inputs in the card itself (`Input.Text`, `Input.Number`, `Input.Date`, `Input.ChoiceSet`),
 * sent with the click of Submit (or, on an approval, with Allow or Deny).
 */
export const teams: ChatPlatform<TeamsChannelConfig> = {
  name: 'teams',
  title: 'Microsoft Teams',
  package: '@chat-adapter/teams',
  config: teamsConfig,
  about: 'A Microsoft Teams bot: one agent talks in the threads and chats that mention it (docs/channels.md).',
  adapter(module, config, logger: Logger): Adapter {
    const { TeamsAdapter, cardToAdaptiveCard } = module as TeamsModule;
    /** Chat SDK's Teams adapter, which also posts a request's card with its form (cards.ts has no inputs). */
    class HeedTeamsAdapter extends TeamsAdapter {
      async postMessage(threadId: string, message: AdapterPostableMessage): Promise<RawMessage<unknown>> {
        const form = (message as Partial<RequestMessage>).form;
        if (!form) return super.postMessage(threadId, message);
        const { card } = message as RequestMessage;
        const content = JSON.parse(JSON.stringify(cardToAdaptiveCard(card))) as { body?: unknown[] };
        content.body = [...(content.body ?? []), ...form.map(adaptiveInput)];
        const activity = {
          type: 'message' as const,
          attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content }],
        };
        const sent = await this.app.sendTo(this.decodeThreadId(threadId), activity);
        return { id: sent.id ?? '', threadId, raw: activity };
      }
    }
    return new HeedTeamsAdapter({
      appId: config.appId,
      ...(config.appPassword ? { appPassword: config.appPassword } : {}),
      ...(config.token ? { token: config.token } : {}),
      ...(config.tenantId ? { appTenantId: config.tenantId } : {}),
      ...(config.apiUrl ? { apiUrl: config.apiUrl.replace(/\/+$/, '') } : {}),
      ...(config.userName ? { userName: config.userName } : {}),
      webhookVerifier: botFrameworkVerifier({
        appId: config.appId,
        openIdMetadataUrl: config.openIdMetadataUrl ?? BOT_FRAMEWORK_OPENID_METADATA,
      }),
      logger,
    });
  },
  typed: { how: 'Or fill in the form and press Submit', commands: false, buttons: true, forms: true },
  cardText: adaptiveCardText,
  mentioned(raw) {
    const activity = raw as Activity;
    const mention = activity.entities?.find(
      (entity) => entity.type === 'mention' && entity.mentioned?.id === activity.recipient?.id,
    );
    return mention?.mentioned?.name;
  },
  formValues(raw) {
    // Action.Submit comes as a message whose `value` holds the button's data and the inputs; Action.Execute
    // as an `adaptiveCard/action` invoke, with them in `value.action.data`.
    const activity = raw as Activity;
    const values = activity.type === 'invoke' ? activity.value?.action?.data : activity.value;
    return values && typeof values === 'object' ? (values as Record<string, unknown>) : {};
  },
};

interface Activity {
  type?: string;
  recipient?: { id?: string };
  entities?: { type?: string; mentioned?: { id?: string; name?: string } }[];
  value?: { action?: { data?: unknown } } & Record<string, unknown>;
}

/** Input.Text's styles, by a typed input's type (a keyboard and a check of their own on some clients). */
const TEXT_STYLES: Partial<Record<FormField['type'], string>> = { email: 'Email', url: 'Url' };

/** A form field as an Adaptive Card input (schema 1.5). */
function adaptiveInput(field: FormField): Record<string, unknown> {
  const common = {
    id: field.name,
    label: field.label,
    ...(field.required ? { isRequired: true, errorMessage: 'Required' } : {}),
    ...(field.placeholder ? { placeholder: field.placeholder } : {}),
    ...(field.value !== undefined ? { value: field.value } : {}),
  };
  const bounds = {
    ...(field.min !== undefined ? { min: field.min } : {}),
    ...(field.max !== undefined ? { max: field.max } : {}),
  };
  switch (field.type) {
    case 'choice':
    case 'select':
      if (!field.options?.length) break;
      return {
        type: 'Input.ChoiceSet',
        ...common,
        choices: field.options.map((option) => ({ title: option.label, value: option.value })),
        style: field.options.length <= 4 && !field.multiple ? 'expanded' : 'compact',
        ...(field.multiple ? { isMultiSelect: true } : {}),
      };
    case 'number':
      // Input.Number's value is a number, not the canonical string a default is kept as.
      return { type: 'Input.Number', ...common, ...bounds, ...(field.value ? { value: Number(field.value) } : {}) };
    case 'date':
      return { type: 'Input.Date', ...common, ...bounds };
    case 'boolean':
      return { type: 'Input.Toggle', ...common, title: field.label, valueOn: 'true', valueOff: 'false' };
    case 'textarea':
      return { type: 'Input.Text', ...common, isMultiline: true };
    default:
      break;
  }
  const style = TEXT_STYLES[field.type];
  return { type: 'Input.Text', ...common, ...(style ? { style } : {}) };
}
