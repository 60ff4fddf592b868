import type { WebClient } from '@slack/web-api';
import { importOptional, requireOptional } from '../../optional-dependency.js';
import { DuplicateMessage } from '../../engine/send.js';
import type { Caller } from '../../caller.js';
import type { SlackChannelConfig } from '../../config.js';
import { mapPerson, recordParticipant } from '../../engine/participants.js';
import { HeedError } from '../../errors.js';
import { errorFields } from '../../logger.js';
import type { DeliveryRecord } from '../../store/store.js';
import type { JsonObject } from '../../types.js';
import {
  DeliveryDropped,
  lapseText,
  recordedThen,
  replyText,
  ThreadConversations,
  type ChannelAdapter,
  type ChannelHost,
} from '../channel.js';
import { reminderText, requestBlocks, requestText, settledBlocks, outcomeText } from './blocks.js';
import { answerInteraction, ok } from './interactions.js';
import { placeOf, type SlackPlace } from './place.js';
import { defaults } from '../../config-schema.js';

/** Slack refuses a message text longer than 40,000 characters. */
export const SLACK_TEXT_LIMIT = 39_000;

type Verify = (options: {
  signingSecret: string;
  body: string;
  headers: { 'x-slack-signature': string; 'x-slack-request-timestamp': number };
}) => boolean;
let verifier: Promise<Verify> | undefined;
/** Bolt's own signature check, loaded on the first request (Bolt is large and only Slack needs it). */
const slackVerifier = () =>
  (verifier ??= importOptional<typeof import('@slack/bolt')>('@slack/bolt', 'The Slack channel').then(
    (bolt) => bolt.isValidSlackRequest as Verify,
  ));

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/**
 * Slack as a channel: one signed endpoint for events and interactivity, threads as conversations,
 * requests as Block Kit, everything it posts sent through the outbox.
 */
export class SlackChannel implements ChannelAdapter {
  readonly name = 'slack' as const;
  readonly client: WebClient;
  private readonly threads: ThreadConversations;

  constructor(
    readonly host: ChannelHost,
    readonly config: SlackChannelConfig,
    attemptTimeoutMs: number,
  ) {
    this.threads = new ThreadConversations(host, 'slack');
    const base = config.apiUrl ?? defaults.slackApiUrl;
    const apiUrl = base.endsWith('/') ? base : `${base}/`;
    // Loaded when the config names Slack, not at `import 'heed'`; a missing one fails createHeed with its `npm i` line.
    const { LogLevel, WebClient } = requireOptional<typeof import('@slack/web-api')>(
      '@slack/web-api',
      'The Slack channel',
    );
    requireOptional<unknown>('@slack/bolt', 'The Slack channel', { resolveOnly: true });
    // No retries inside the client: the outbox retries, with its own backoff, across restarts.
    this.client = new WebClient(config.botToken, {
      slackApiUrl: apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: attemptTimeoutMs,
      logLevel: LogLevel.ERROR,
    });
  }

  callerFor(userId: string): Caller {
    return { userId: `slack:${userId}`, data: { slack: { user: userId } } };
  }

  /** The Heed person a Slack user maps to (`channels.slack.userId`), answering a request posted here; none: not linked. */
  async personFor(userId: string): Promise<Caller | undefined> {
    const mapped = await mapPerson({ platform: 'slack', id: userId }, this.config.userId);
    return mapped.userId ? { userId: mapped.userId, data: { slack: { user: userId } } } : undefined;
  }

  async receive(request: { headers: Headers; body: string }): Promise<Response> {
    const signature = request.headers.get('x-slack-signature');
    const timestamp = Number(request.headers.get('x-slack-request-timestamp'));
    const verify = await slackVerifier();
    if (
      !signature ||
      !Number.isFinite(timestamp) ||
      !verify({
        signingSecret: this.config.signingSecret,
        body: request.body,
        headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp },
      })
    ) {
      throw new HeedError(
        'unauthorized',
        'This request is not signed by Slack (or its signature is more than five minutes old).',
      );
    }
    const type = request.headers.get('content-type') ?? '';
    if (/^application\/x-www-form-urlencoded/i.test(type)) {
      const payload = new URLSearchParams(request.body).get('payload');
      if (!payload)
        throw new HeedError('invalid_request', 'An interactivity request carries a "payload" field.', {
          details: { field: 'payload' },
        });
      return answerInteraction(this, parse(payload));
    }
    const body = parse(request.body) as {
      type?: string;
      challenge?: string;
      event_id?: string;
      team_id?: string;
      event?: SlackEvent;
      authorizations?: { user_id?: string }[];
    };
    if (body.type === 'url_verification') return json({ challenge: body.challenge });
    if (body.type === 'event_callback' && body.event)
      await this.onEvent(
        body.event,
        body.event_id ?? '',
        body.team_id ?? body.event.team ?? '',
        body.authorizations?.[0]?.user_id,
      );
    return ok();
  }

  /**
   * A mention or a direct message: the text goes to the thread's conversation. Slack wants its answer
   * within 3 s and a turn takes longer, so the answer goes once the message is recorded and the turn runs after.
   */
  private async onEvent(event: SlackEvent, eventId: string, team: string, botUser: string | undefined): Promise<void> {
    const mention = event.type === 'app_mention';
    const direct = event.type === 'message' && event.channel_type === 'im' && !event.subtype;
    const { user, channel, ts } = event;
    if ((!mention && !direct) || event.bot_id || !user || !channel || !ts) return;
    const place = { team, channel, thread: event.thread_ts ?? ts };
    const mentionOfBot = botUser ? new RegExp(`<@${botUser}>\\s*`, 'g') : /^\s*<@[A-Z0-9]+>\s*/;
    const text = (event.text ?? '').replace(mentionOfBot, '').trim();
    if (!text) return;
    const conversationId = await this.conversationFor(place);
    const caller = this.callerFor(user);
    await recordParticipant(
      this.host.store,
      conversationId,
      await mapPerson({ platform: 'slack', id: user }, this.config.userId),
    );
    try {
      await this.recorded(
        (onRecorded) =>
          this.host.send(conversationId, text, {
            caller,
            metadata: { slack: { eventId, user, ts } },
            // The same event again (Slack retries until it has a 200): recorded once, by its event id.
            seen: (messages) =>
              eventId !== '' &&
              messages.some((message) => (message.metadata?.slack as JsonObject | undefined)?.eventId === eventId),
            onRecorded,
          }),
        place,
      );
    } catch (error) {
      if (error instanceof DuplicateMessage) return;
      if (!HeedError.isInstance(error))
        this.host.logger.error(
          { channel: place.channel, ...errorFields(error) },
          'Heed: a Slack message could not be handled',
        );
      const code = HeedError.isInstance(error) ? error.code : 'internal_error';
      const why =
        code === 'action_pending'
          ? 'This thread is waiting for an answer to the request above; answer it first, then write again.'
          : code === 'conversation_busy'
            ? "I'm still working on the last message in this thread; write again once I have replied."
            : HeedError.isInstance(error)
              ? error.message
              : 'Something went wrong; please try again.';
      this.ephemeral(place, user, why);
    }
  }

  /** A write whose work goes on after it is recorded (src/channels/channel.ts, `recordedThen`). */
  recorded(run: (onRecorded: () => void) => Promise<unknown>, place?: SlackPlace): Promise<void> {
    return recordedThen(
      this.host,
      'Slack',
      run,
      place && ((text) => this.client.chat.postMessage({ channel: place.channel, thread_ts: place.thread, text })),
    );
  }

  /** The conversation of a thread, made on its first message (src/channels/channel.ts, `ThreadConversations`). */
  conversationFor(place: SlackPlace): Promise<string> {
    return this.threads.open(`slack:${place.team}:${place.channel}:${place.thread}`, this.config.agent, {
      slack: { team: place.team, channel: place.channel, threadTs: place.thread },
    });
  }

  /** A note only one person sees (best effort: nobody else needs it, so it is not kept in the outbox). */
  ephemeral(place: SlackPlace, user: string, text: string): void {
    const sent = this.client.chat
      .postEphemeral({ channel: place.channel, user, text, ...(place.thread ? { thread_ts: place.thread } : {}) })
      .catch((error: unknown) =>
        this.host.logger.warn(
          { channel: place.channel, user, ...errorFields(error) },
          'Heed: a Slack note to one person could not be posted',
        ),
      );
    // Its failure is logged above; track() only lets close() wait for it.
    void this.host.track(sent);
  }

  async deliver(delivery: DeliveryRecord): Promise<JsonObject | undefined> {
    if (delivery.target.type !== 'channel') throw new DeliveryDropped('not a channel delivery');
    const place = placeOf(delivery.target.channel);
    const store = this.host.store;
    if (delivery.event === 'message.created') {
      const message = (await store.listMessages(delivery.conversationId)).find(
        (entry) => entry.id === delivery.actionId,
      );
      if (!message) throw new DeliveryDropped('the message is gone');
      const text = replyText(message);
      const posted = await this.client.chat.postMessage({
        channel: place.channel,
        ...(place.thread ? { thread_ts: place.thread } : {}),
        text: text.slice(0, SLACK_TEXT_LIMIT),
      });
      return { ts: posted.ts ?? null };
    }
    const action = await store.getAction(delivery.conversationId, delivery.actionId);
    if (!action) throw new DeliveryDropped('the action is gone');
    if (delivery.event === 'action.required') {
      // As it stands now: a request settled before it could be posted is posted as settled.
      const posted = await this.client.chat.postMessage({
        channel: place.channel,
        ...(place.thread ? { thread_ts: place.thread } : {}),
        text: requestText(action),
        blocks: requestBlocks(action) as never,
      });
      return { ts: posted.ts ?? null };
    }
    if (delivery.event === 'action.reminder') {
      // Not sent for a request settled or made open-ended meanwhile.
      if (action.status !== 'pending' || action.expiresAt === null)
        throw new DeliveryDropped('the action no longer waits for a deadline');
      const posted = await this.client.chat.postMessage({
        channel: place.channel,
        ...(place.thread ? { thread_ts: place.thread } : {}),
        text: reminderText(action),
      });
      return { ts: posted.ts ?? null };
    }
    // Settled: update the posted request. Written after it, so it is normally sent after it too.
    const post = (await store.listDeliveries({ actionId: action.id })).find(
      (entry) => entry.event === 'action.required' && entry.target.type === 'channel',
    );
    if (!post || post.status === 'failed' || post.status === 'dropped')
      throw new DeliveryDropped('the request was never posted');
    const ts = post.receipt?.ts;
    if (post.status !== 'delivered' || typeof ts !== 'string') throw new Error('the request is not posted yet');
    await this.client.chat.update({
      channel: place.channel,
      ts,
      text: outcomeText(action),
      blocks: settledBlocks(action) as never,
    });
    // A lapse also says so in the thread: an edited card notifies nobody.
    const lapse = lapseText(action);
    if (lapse) await this.client.chat.postMessage({ channel: place.channel, thread_ts: place.thread, text: lapse });
    return undefined;
  }
}

export interface SlackEvent {
  type: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  channel?: string;
  channel_type?: string;
  team?: string;
}

function parse(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    if (typeof value === 'object' && value !== null) return value;
  } catch {
    // Falls through to the error below.
  }
  throw new HeedError('invalid_request', 'The request body is not the JSON Slack sends.', {
    details: { field: 'body' },
  });
}
