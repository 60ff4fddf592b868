import type { ActionEvent, Adapter, AdapterPostableMessage, EphemeralMessage, Logger, RawMessage } from 'chat';
import { z } from 'zod';
import { channelCommon, fn, httpUrl, strict } from '../../../config-shapes.js';
import type { ActionRecord, ConversationRecord } from '../../../types.js';
import { must } from '../../../errors.js';
import type { ChatChannelConfig, ChatPlatform } from '../chat-channel.js';
import { markdownCardText } from '../escape.js';
import {
  ACTION,
  MODAL_CALLBACK,
  modalAnswers,
  modalErrors,
  outcomeText,
  questionModal,
  reminderText,
  askedByBlocks,
  requestBlocks,
  requestText,
  settledBlocks,
  type ButtonValue,
  type ModalContext,
} from './slack-blocks.js';

type SlackAccess = (
  slackUserId: string,
  target: { conversation: ConversationRecord; action: ActionRecord },
) => boolean | Promise<boolean>;
/** `channels.slack` (docs/channels.md): its `access` takes the Slack user id, as it did before Slack ran on Chat SDK. */
export const slackConfig = strict({
  botToken: z
    .string({ error: 'expected a string' })
    .min(1, 'expected the bot token (xoxb-…)')
    .describe("The bot's token (`xoxb-…`), for posting and updating messages."),
  signingSecret: z
    .string({ error: 'expected a string' })
    .min(1, "expected the app's signing secret")
    .describe("The app's signing secret: every request to `POST /api/channels/slack/events` must be signed with it."),
  agent: z
    .string({ error: 'expected an agent name' })
    .min(1, 'expected an agent name')
    .describe('The agent that answers in Slack.'),
  apiUrl: httpUrl.default('https://slack.com/api/').describe('The Web API base (tests point it at a local server).'),
  access: fn<SlackAccess>('access(slackUserId, { conversation, action })')
    .optional()
    .describe('Who may answer a request posted in a thread, by Slack user id. Default: anyone in the thread.'),
  userId: channelCommon.userId,
});
export type SlackChannelConfig = z.input<typeof slackConfig>;
declare module '../../../config-schema.js' {
  interface ChannelsConfig {
    /** A Slack workspace where one agent talks in threads (docs/channels.md). */
    slack?: SlackChannelConfig;
  }
}
const defaultApiUrl = slackConfig.shape.apiUrl.parse(undefined);

type SlackModule = typeof import('@chat-adapter/slack');

/** Slack refuses a message text longer than 40,000 characters. */
export const SLACK_TEXT_LIMIT = 39_000;

/**
 * `channels.slack` as the seam takes it: `access` is asked about the person (`{ platform, id, … }`), as on every
 * platform; the entry's own `access(slackUserId, …)` is called with their id (`configOf`).
 */
export type SlackChatConfig = Omit<SlackChannelConfig, 'access'> & ChatChannelConfig;

/** What Heed posts to Slack: its own mrkdwn and Block Kit (slack-blocks.ts), as it posted them before Chat SDK. */
interface SlackPost {
  raw: string;
  slack: { text: string; blocks?: unknown[] };
}

const post = (text: string, blocks?: unknown[]): SlackPost => ({
  raw: text,
  slack: { text, ...(blocks ? { blocks } : {}) },
});

function ownPost(message: AdapterPostableMessage): SlackPost['slack'] | undefined {
  return typeof message === 'object' && message !== null && 'slack' in message
    ? (message as SlackPost).slack
    : undefined;
}

/** What Slack sends that says where: an event, or a click's or a modal's payload. */
interface SlackRaw {
  channel?: string | { id?: string };
  ts?: string;
  thread_ts?: string;
  text?: string;
  team?: string | { id?: string };
  user?: string | { team_id?: string };
  /** The workspace of the event's envelope (`team_id`), kept on the event by the adapter below. */
  heedTeam?: string;
  container?: { channel_id?: string; thread_ts?: string; message_ts?: string };
  message?: { ts?: string; thread_ts?: string };
  view?: { private_metadata?: string; state?: { values?: Record<string, Record<string, never>> } };
}

/** The workspace an event or payload comes from. */
function teamOf(raw: SlackRaw): string {
  if (raw.heedTeam) return raw.heedTeam;
  if (typeof raw.team === 'string') return raw.team;
  return raw.team?.id ?? (typeof raw.user === 'object' ? raw.user.team_id : undefined) ?? '';
}

/**
 * Slack (docs/channels.md): a Slack app whose Request URL is `POST /api/channels/slack/events`, for events and
 * interactivity alike, signed with the app's signing secret (checked by the adapter). A thread is a
 * conversation, kept under `slack:<team>:<channel>:<thread ts>` as before Slack ran on Chat SDK, so the ids of
 * conversations made then (an HMAC of it) stay theirs. Requests are Heed's own Block Kit (slack-blocks.ts): buttons,
 * and a modal for typed answers; a note to one person is ephemeral.
 */
export const slack: ChatPlatform<SlackChatConfig> = {
  name: 'slack',
  title: 'Slack',
  config: slackConfig,
  about: 'A Slack workspace where one agent talks in threads (docs/channels.md).',
  package: '@chat-adapter/slack',
  adapter(module, config, logger: Logger, attemptTimeoutMs): Adapter {
    const { SlackAdapter } = module as SlackModule;
    /** Chat SDK's Slack adapter, which also posts Heed's own Block Kit and opens its modal. */
    class HeedSlackAdapter extends SlackAdapter {
      async postMessage(threadId: string, message: AdapterPostableMessage): Promise<RawMessage<unknown>> {
        const own = ownPost(message);
        if (!own) return super.postMessage(threadId, message);
        const { channel, threadTs } = this.decodeThreadId(threadId);
        const posted = await this.client.chat.postMessage(
          (await this.withToken({ channel, ...(threadTs ? { thread_ts: threadTs } : {}), ...own })) as never,
        );
        return { id: posted.ts ?? '', threadId, raw: posted };
      }

      async editMessage(threadId: string, messageId: string, message: AdapterPostableMessage) {
        const own = ownPost(message);
        if (!own) return super.editMessage(threadId, messageId, message);
        const { channel } = this.decodeThreadId(threadId);
        const edited = await this.client.chat.update(
          (await this.withToken({ channel, ts: messageId, ...own })) as never,
        );
        return { id: edited.ts ?? messageId, threadId, raw: edited };
      }

      async postEphemeral(
        threadId: string,
        userId: string,
        message: AdapterPostableMessage,
      ): Promise<EphemeralMessage> {
        const own = ownPost(message);
        if (!own) return super.postEphemeral(threadId, userId, message);
        const { channel, threadTs } = this.decodeThreadId(threadId);
        const sent = await this.client.chat.postEphemeral(
          (await this.withToken({
            channel,
            user: userId,
            ...(threadTs ? { thread_ts: threadTs } : {}),
            ...own,
          })) as never,
        );
        return { id: sent.message_ts ?? '', threadId, usedFallback: false, raw: sent };
      }

      async openView(triggerId: string, view: unknown): Promise<void> {
        await this.client.views.open((await this.withToken({ trigger_id: triggerId, view })) as never);
      }

      // The envelope's workspace, which a conversation's place names (an event's own `team` is its author's).
      protected processEventPayload(payload: never, options?: never): void {
        const envelope = payload as { team_id?: string; event?: SlackRaw };
        if (envelope.event && envelope.team_id) envelope.event.heedTeam = envelope.team_id;
        super.processEventPayload(payload, options);
      }

      // Heed records each message itself, once, by its id: a retry of an event it could not record is taken again.
      protected async isDuplicateEventDelivery(): Promise<boolean> {
        return false;
      }
    }
    return new HeedSlackAdapter({
      botToken: config.botToken,
      signingSecret: config.signingSecret,
      apiUrl: config.apiUrl ?? defaultApiUrl,
      ...(config.userName ? { userName: config.userName } : {}),
      // No retries inside the client: the outbox retries, with its own backoff, across restarts.
      webClientOptions: { retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, timeout: attemptTimeoutMs },
      logger,
    });
  },
  configOf: ({ access, ...entry }: SlackChannelConfig): SlackChatConfig => ({
    ...entry,
    ...(access ? { access: (user, target) => access(user.id, target) } : {}),
  }),
  // Slack's cards are its own (`own`); typed answers are its modal.
  typed: { how: 'Answer…', commands: false, buttons: true },
  cardText: markdownCardText,
  privateNotes: true,
  textOf(raw, adapter) {
    const bot = (adapter as Adapter & { botUserId?: string }).botUserId;
    const mention = bot ? new RegExp(`<@${bot}>\\s*`, 'g') : /^\s*<@[A-Z0-9]+>\s*/;
    return ((raw as SlackRaw).text ?? '').replace(mention, '').trim();
  },
  place: {
    of(threadId, raw) {
      const where = raw as SlackRaw;
      const [, fromId = '', tsFromId = ''] = threadId.split(':');
      const channel =
        (typeof where.channel === 'string' ? where.channel : where.channel?.id) ??
        where.container?.channel_id ??
        fromId;
      // A direct message's thread is its first message, as in a channel (the adapter keeps one per DM).
      const thread =
        where.message?.thread_ts ??
        where.container?.thread_ts ??
        where.thread_ts ??
        where.message?.ts ??
        where.container?.message_ts ??
        where.ts ??
        tsFromId;
      return `slack:${teamOf(where)}:${channel}:${thread}`;
    },
    thread(place) {
      const [, , channel = '', thread = ''] = place.split(':');
      return thread ? `slack:${channel}:${thread}` : `slack:${channel}`;
    },
  },
  own: {
    request: (action, from) => post(requestText(action), [...askedByBlocks(from), ...requestBlocks(action)]),
    settled: (action, from) => post(outcomeText(action), [...askedByBlocks(from), ...settledBlocks(action)]),
    reminder: (action) => post(reminderText(action)),
    text: (text) => post(text.slice(0, SLACK_TEXT_LIMIT)),
    outcome: outcomeText,
    buttons: Object.values(ACTION),
    click(event: ActionEvent) {
      // Opening a link records nothing: the person says Done or Decline once they have been there.
      if (event.actionId === ACTION.open || !event.value) return undefined;
      const value = readJson<ButtonValue>(event.value);
      if (!value?.a) return undefined;
      return {
        actionId: value.a,
        answer: (action) =>
          event.actionId === ACTION.modal ? 'form' : clickResolution(event.actionId, action, value.o),
      };
    },
    form: {
      callbackId: MODAL_CALLBACK,
      async open(adapter, triggerId, action) {
        const where: ModalContext = { c: action.conversationId, a: action.id };
        // A trigger lasts 3 s: the modal is opened now, not through the outbox.
        await (adapter as Adapter & { openView(triggerId: string, view: unknown): Promise<void> }).openView(
          must(triggerId, 'Slack sends a trigger id with every click.'),
          questionModal(action, where),
        );
      },
      read(event) {
        const raw = event.raw as SlackRaw;
        const where = readJson<ModalContext>(raw.view?.private_metadata ?? '');
        return where?.a ? { actionId: where.a, within: `slack:${teamOf(raw)}:` } : undefined;
      },
      answer: (action, event) => ({
        type: 'question',
        answers: modalAnswers(action, (event.raw as SlackRaw).view?.state?.values ?? {}),
      }),
      errors: modalErrors,
    },
  },
};

function clickResolution(
  actionId: string,
  action: Parameters<typeof outcomeText>[0],
  option: number | undefined,
): Record<string, unknown> | undefined {
  switch (actionId) {
    case ACTION.allow:
      return { type: 'approval', decision: 'allow' };
    case ACTION.deny:
      return { type: 'approval', decision: 'deny' };
    case ACTION.skip:
      return { type: 'question', skip: true };
    case ACTION.accept:
      return { type: 'url', decision: 'accept' };
    case ACTION.decline:
      return { type: 'url', decision: 'decline' };
    case ACTION.option: {
      const question = action.request.kind === 'question' ? action.request.questions[0] : undefined;
      const picked = option === undefined ? undefined : question?.options?.[option];
      return question && picked ? { type: 'question', answers: { [question.id]: picked.value } } : undefined;
    }
    default:
      return undefined;
  }
}

function readJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    // Not JSON: not one of Heed's buttons or modals.
    return undefined;
  }
}
