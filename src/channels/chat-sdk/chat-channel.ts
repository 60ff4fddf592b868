import { AsyncLocalStorage } from 'node:async_hooks';
import { isDeepStrictEqual } from 'node:util';
import type {
  ActionEvent,
  Adapter,
  AdapterPostableMessage,
  CardElement,
  Chat,
  Logger as ChatLogger,
  Message,
  ModalResponse,
  ModalSubmitEvent,
  PostableCard,
  Thread,
} from 'chat';
import type { Caller } from '../../caller.js';
import type { z } from 'zod';
import { defaults, type ChannelStateConfig } from '../../config-schema.js';
import type { ChannelCommonConfig, ChannelUser } from '../../config-shapes.js';
import { HeedError } from '../../errors.js';
import { errorFields, type Logger } from '../../logger.js';
import { importOptional } from '../../optional-dependency.js';
import { DuplicateMessage } from '../../engine/send.js';
import { mapPerson, recordParticipant } from '../../engine/participants.js';
import { holdsRequest, requestSettings } from '../../protocol/request-conversation.js';
import { parentOf, rootOf } from '../../engine/children.js';
import { childPendingRecords } from '../../engine/child-actions.js';
import type { ChannelPlatform } from '../../protocol/action-base.js';
import type { DeliveryRecord } from '../../store/store.js';
import type { ActionRecord, ConversationRecord, JsonObject } from '../../types.js';
import {
  DeliveryDropped,
  lapseText,
  recordedThen,
  replyText,
  ThreadConversations,
  type ChannelAdapter,
  type ChannelHost,
} from '../channel.js';
import { HarmlessClaims } from './harmless-claims.js';
import { clickAnswer, readCommand, typedAnswer, type FormValues } from './answers.js';
import {
  BUTTON,
  outcomeText,
  readButton,
  reminderText,
  requestCard,
  requestForm,
  settledCard,
  type FormField,
  type TypedAnswers,
} from './cards.js';
import type { CardText } from './escape.js';
import { HeedState } from './heed-state.js';
import { redisState } from './redis-state.js';

/**
 * What the channel reads of every platform's entry of `channels`: the common keys (config-shapes.ts),
 * and the two most platforms have.
 */
export type ChatChannelConfig = ChannelCommonConfig & { apiUrl?: string; userName?: string };

/** One chat platform on Chat SDK: its package, how its adapter is made, and how people answer there. */
export interface ChatPlatform<Config extends ChatChannelConfig = ChatChannelConfig> {
  name: ChannelPlatform;
  /** The platform's name as people know it (`Telegram`). */
  title: string;
  /** The `@chat-adapter/*` package, loaded only when the platform is configured. */
  package: string;
  /** Its entry of `channels`: `channelCommon` and its own keys (config-shapes.ts), checked at start. */
  config: z.ZodObject;
  /** The entry's doc line (docs/http.md's config tables). */
  about: string;
  /**
   * The adapter, from the loaded package, the config and a logger (Google Chat loads its auth library too);
   * `attemptTimeoutMs` is how long one call may take (`notify.attemptTimeoutMs`: the outbox retries after it).
   */
  adapter(module: unknown, config: Config, logger: ChatLogger, attemptTimeoutMs: number): Adapter | Promise<Adapter>;
  /** How a person answers by typing (a reply, or comment commands). */
  typed: TypedAnswers;
  /** How text an agent, a caller or a person wrote goes into this platform's cards: as words, never as markup (escape.ts). */
  cardText: CardText;
  /** State keys the adapter claims before Heed records a message (Heed deduplicates by message id itself). */
  harmlessClaim?(key: string): boolean;
  /** The id of the posted message a message replies to, when it is a reply. */
  repliedTo?(raw: unknown): string | undefined;
  /** The adapter's answers that mean a bad or stale proof, besides 401 and 403 (Linear answers 400). */
  badProof?(response: Response): boolean;
  /** How a note addresses its person, where `@name` is not the platform's mention (Discord's `<@id>`). */
  mention?(user: ChannelUser): string;
  /** The bot's name as a message's mention of it shows it (Teams: the mention entity's), when the platform says. */
  mentioned?(raw: unknown): string | undefined;
  /**
   * A message's text as Heed records it, without its mention of the bot, where the platform's raw event says
   * it (Slack's text as Slack sent it, as recorded before Slack ran on Chat SDK). Absent: the adapter's text.
   */
  textOf?(raw: unknown, adapter: Adapter): string | undefined;
  /** Where cards are forms (`typed.forms`): the typed inputs a click carries, by input id, from its raw event. */
  formValues?(raw: unknown): FormValues;
  /**
   * A socket the platform sends on that Heed holds itself when the config says so (Discord's Gateway with
   * `gateway: true`): started once the adapter is loaded, closed first at close. What arrives on it goes to
   * `inbox.receive`, the endpoint's own code.
   */
  listen?(config: Config, inbox: ChannelInbox): Promise<Listener | undefined>;
  /**
   * Where a conversation's `channel` is not the adapter's thread id (Slack's is `slack:<team>:<channel>:<thread ts>`,
   * as it was before Slack ran on Chat SDK; its adapter's `slack:<channel>:<thread ts>`): the place a thread and
   * the raw event it came with stand for, and the thread id of a place. Absent: the thread id is the place.
   */
  place?: { of(threadId: string, raw: unknown): string; thread(place: string): string };
  /** What the platform draws itself instead of cards.ts's cards (Slack's Block Kit and modal). */
  own?: OwnMessages;
  /** A note to one person is shown to that person alone (Slack's ephemeral messages), not a reply naming them. */
  privateNotes?: boolean;
  /**
   * The channel's config from the platform's entry of `channels`, where that entry has a shape of its own
   * (Slack's `access(slackUserId, …)`). Absent: the entry is the config.
   */
  configOf?(entry: never): Config;
}

/**
 * A platform's own messages (`ChatPlatform.own`): what it posts for a request, once settled, as a reminder and
 * as a line of text, its buttons, and its form for typed answers. Delivery stays the channel's.
 */
export interface OwnMessages {
  /** `from`: the child agent that asks, when the request is a child conversation's (docs/concepts.md). */
  request(action: ActionRecord, from?: string): AdapterPostableMessage;
  settled(action: ActionRecord, from?: string): AdapterPostableMessage;
  reminder(action: ActionRecord): AdapterPostableMessage;
  /** A line in a thread: a reply, a note, a lapse. */
  text(text: string): AdapterPostableMessage;
  /** How a request ended, in one line (a late answer is told it). */
  outcome(action: ActionRecord): string;
  /** The ids of its buttons. */
  buttons: string[];
  /** A click on one of them: the action it names, and the answer it gives (`form`: open the form for it). */
  click(event: ActionEvent): { actionId: string; answer(action: ActionRecord): Answer | 'form' } | undefined;
  form?: OwnForm;
}

type Answer = Record<string, unknown> | undefined;

/** A platform's form for typed answers (Slack's modal): opened on a click, answered by its submission. */
export interface OwnForm {
  callbackId: string;
  open(adapter: Adapter, triggerId: string | undefined, action: ActionRecord): Promise<void>;
  /** What a submission answers: its action, and the prefix its conversation's place has (the same workspace). */
  read(event: ModalSubmitEvent): { actionId: string; within: string } | undefined;
  answer(action: ActionRecord, event: ModalSubmitEvent): Answer;
  /** The refusal's sentences under the form's fields. */
  errors(action: ActionRecord, fields: Refusal['fields'], text: string): Record<string, string>;
}

/** Why an answer did not count, with the server's sentences by field when it gave them. */
interface Refusal {
  text: string;
  fields: { field: string; message: string }[];
}

/** What a platform's socket hands its events to (`ChatPlatform.listen`). */
export interface ChannelInbox {
  /** The channel's endpoint: proves, records (before it resolves) and deduplicates, as for a request. */
  receive(request: { headers: Headers; body: string }): Promise<Response>;
  readonly store: ChannelHost['store'];
  readonly logger: Logger;
  /** Runs a detached promise, so the Heed's `close()` waits for it. */
  track<T>(promise: Promise<T>): Promise<T>;
}

/** A socket held by `ChatPlatform.listen`. */
export interface Listener {
  close(): Promise<void>;
}

/**
 * A request's card as Heed posts it: where the platform has forms, with the typed inputs its adapter
 * renders into the card (cards.ts cannot say them in Chat SDK's card model).
 */
export type RequestMessage = PostableCard & { card: CardElement; form?: FormField[] };

interface Loaded {
  chat: Chat;
  adapter: Adapter;
}

/**
 * A chat platform as a channel, on Chat SDK (docs/channels.md): the adapter proves and parses what the
 * platform sends and renders cards; Heed records each message before the endpoint answers, settles answers
 * by the normal order, and posts everything through its outbox.
 */
export class ChatChannel<Config extends ChatChannelConfig = ChatChannelConfig> implements ChannelAdapter {
  readonly name: ChannelPlatform;
  private readonly threads: ThreadConversations;
  private loaded?: Promise<Loaded>;
  private listener?: Listener;
  /**
   * What failed while one request was handled. Some adapters run handlers without handing Heed their
   * promise (Discord's forwarded Gateway messages), and catch what they throw: a handler records its own
   * failure here, so the endpoint still answers 5xx.
   */
  private readonly handling = new AsyncLocalStorage<{ failures: unknown[] }>();

  constructor(
    readonly host: ChannelHost,
    readonly platform: ChatPlatform<Config>,
    readonly config: Config,
    /** `channels.state`: where Chat SDK's state is kept (absent: Heed's store). */
    readonly state?: ChannelStateConfig,
    /** `notify.attemptTimeoutMs`, for the adapters whose client takes a timeout (Slack's). */
    private readonly attemptTimeoutMs = defaults.attemptTimeoutMs,
  ) {
    this.name = platform.name;
    this.threads = new ThreadConversations(host, platform.name);
  }

  /** Loads Chat SDK and the platform's adapter: a missing package fails the start with its `npm i` line. */
  async start(): Promise<void> {
    await this.load();
    this.listener = await this.platform.listen?.(this.config, {
      receive: (request) => this.receive(request),
      store: this.host.store,
      logger: this.host.logger,
      track: (promise) => this.host.track(promise),
    });
  }

  async stopListening(): Promise<void> {
    await this.listener?.close();
  }

  async close(): Promise<void> {
    await this.stopListening();
    const loaded = await this.loaded?.catch(() => undefined);
    await loaded?.chat.shutdown();
  }

  private load(): Promise<Loaded> {
    this.loaded ??= (async () => {
      const feature = `The ${this.platform.title} channel`;
      const sdk = await importOptional<typeof import('chat')>('chat', feature);
      const module = await importOptional<unknown>(this.platform.package, feature);
      const logger = chatLogger(this.host.logger, this.name);
      const adapter = await this.platform.adapter(module, this.config, logger, this.attemptTimeoutMs);
      const state = this.state ? await redisState(this.state, feature, logger) : new HeedState(this.host.store);
      const chat = new sdk.Chat({
        userName: this.config.userName ?? 'heed',
        adapters: { [this.name]: adapter },
        state: new HarmlessClaims(state, (key) => this.platform.harmlessClaim?.(key) ?? false),
        // Heed runs one turn at a time per conversation itself, and refuses a message while one runs.
        concurrency: 'concurrent',
        logger,
      });
      const onMessage = (thread: Thread, message: Message) => this.failing(this.onMessage(thread, message));
      chat.onNewMention(onMessage);
      chat.onDirectMessage(onMessage);
      chat.onSubscribedMessage(onMessage);
      chat.onNewMessage(/[\s\S]*/, onMessage);
      chat.onAction([BUTTON, ...(this.platform.own?.buttons ?? [])], (event) => this.failing(this.onClick(event)));
      const form = this.platform.own?.form;
      if (form) chat.onModalSubmit(form.callbackId, (event) => this.onSubmit(form, event));
      await chat.initialize();
      return { chat, adapter };
    })();
    return this.loaded;
  }

  /** A handler's work, its failure also kept for the request being handled (see `handling`). */
  private async failing(work: Promise<void>): Promise<void> {
    try {
      await work;
    } catch (error) {
      const context = this.handling.getStore();
      if (context && !context.failures.includes(error)) context.failures.push(error);
      throw error;
    }
  }

  /** The Heed person a workspace's person maps to, answering a request posted here (none: not linked). */
  private personFor(user: ChannelUser, userId: string | undefined): Caller | undefined {
    if (!userId) return undefined;
    return { userId, data: { [this.name]: { user: user.id, ...(user.userName ? { userName: user.userName } : {}) } } };
  }

  callerFor(userId: string, user?: Partial<ChannelUser>): Caller {
    return {
      userId: `${this.name}:${userId}`,
      data: { [this.name]: { user: userId, ...(user?.userName ? { userName: user.userName } : {}) } },
    };
  }

  /**
   * Proves and parses a request through the adapter, then waits for the handlers' work: each message is
   * recorded (or found already recorded) before the platform has its answer, so nothing is lost if the
   * process dies after it. A bad proof is 401 and changes nothing; a failure to record is a 5xx, which
   * the platform retries.
   */
  async receive(request: { headers: Headers; body: string }): Promise<Response> {
    const { chat } = await this.load();
    const work: Promise<unknown>[] = [];
    const webhook = chat.webhooks[this.name];
    if (!webhook) throw new HeedError('not_found', `${this.platform.title} is not configured on this server.`);
    const context = { failures: [] as unknown[] };
    const response = await this.handling.run(context, () =>
      webhook(
        new Request(`http://heed.invalid/api/channels/${this.name}/events`, {
          method: 'POST',
          headers: request.headers,
          body: request.body,
        }),
        // Heed deduplicates by the platform's message id in its own store, once the message is recorded.
        { deduplicate: false, propagateHandlerErrors: true, waitUntil: (task) => void work.push(task) },
      ),
    );
    if (response.status === 401 || response.status === 403 || this.platform.badProof?.(response.clone()))
      throw new HeedError(
        'unauthorized',
        `This request is not signed by ${this.platform.title} (or its proof is stale).`,
      );
    const failures = context.failures;
    // A task may add others while it runs: the list is read to its end as it grows.
    for (let index = 0; index < work.length; index++) await work[index].catch((error) => failures.push(error));
    if (failures.length > 0) {
      this.host.logger.error(
        { channel: this.name, ...errorFields(failures[0]) },
        `Heed: a ${this.platform.title} event could not be recorded; the platform will send it again`,
      );
      throw new HeedError('internal_error', 'The event could not be recorded; send it again.');
    }
    return response;
  }

  /** A message in a thread: an answer typed to a posted request, or a mention or direct message for the agent. */
  private async onMessage(thread: Thread, message: Message): Promise<void> {
    const author = message.author;
    if (author.isMe || author.isBot === true) return;
    const user = this.userOf(author);
    const where = this.whereOf(thread.id, message.raw);
    const { adapter } = await this.load();
    const name = this.platform.mentioned?.(message.raw) ?? this.config.userName ?? adapter.userName;
    const text = this.platform.textOf?.(message.raw, adapter) ?? this.withoutMention(message.text ?? '', name);
    const repliedTo = this.platform.repliedTo?.(message.raw);
    const posted = repliedTo ? await this.postedAt(repliedTo) : undefined;
    if (posted) {
      const action = await this.host.store.getAction(posted.conversationId, posted.actionId);
      if (action) return this.answer(where, action, user, typedAnswer(action, text, true), text, true);
    }
    if (this.platform.typed.commands && readCommand(text)) {
      const answered = await this.answeredBy(where.place);
      if (answered) return this.answer(where, answered, user, typedAnswer(answered, text, false), text);
      return this.note(where.thread, user, 'Nothing in this thread waits for an answer.');
    }
    if (!message.isMention && !thread.isDM) return;
    if (!text) return;
    const conversationId = await this.conversationFor(where.place);
    // Later messages of the thread (replies to posted requests) reach Heed without a mention.
    await thread.subscribe();
    await this.remember(user);
    await recordParticipant(this.host.store, conversationId, await mapPerson(user, this.config.userId));
    try {
      await this.recorded(
        (onRecorded) =>
          this.host.send(conversationId, text, {
            caller: this.callerFor(user.id, user),
            metadata: { [this.name]: { messageId: message.id, user: user.id } },
            // The same message again (the platform retries until it has its answer): recorded once, by its id
            // (Slack's messages recorded before it ran on Chat SDK keep it as `ts`).
            seen: (messages) =>
              messages.some((entry) => {
                const recorded = entry.metadata?.[this.name] as JsonObject | undefined;
                return (recorded?.messageId ?? recorded?.ts) === message.id;
              }),
            onRecorded,
          }),
        where.thread,
      );
    } catch (error) {
      if (error instanceof DuplicateMessage) return;
      if (!HeedError.isInstance(error)) throw error;
      const why =
        error.code === 'action_pending'
          ? 'This thread is waiting for an answer to the request above; answer it first, then write again.'
          : error.code === 'conversation_busy'
            ? "I'm still working on the last message in this thread; write again once I have replied."
            : error.message;
      this.note(where.thread, user, why);
    }
  }

  private userOf(author: Pick<ChannelUser, 'userName' | 'email'> & { userId: string }): ChannelUser {
    return {
      platform: this.name,
      id: author.userId,
      ...(author.userName ? { userName: author.userName } : {}),
      ...(author.email ? { email: author.email } : {}),
    };
  }

  /**
   * The place a thread of the adapter and the event it came with stand for (what a conversation's `channel`
   * holds: `ChatPlatform.place`), and the thread Heed answers in there.
   */
  private whereOf(threadId: string, raw: unknown): Where {
    const place = this.platform.place?.of(threadId, raw) ?? threadId;
    return { place, thread: this.threadOf(place) };
  }

  /** The adapter's thread of a place. */
  private threadOf(place: string): string {
    return this.platform.place?.thread(place) ?? place;
  }

  /** A click on a posted request's button: an answer from the person who clicked. */
  private async onClick(event: ActionEvent): Promise<void> {
    const own = this.platform.own?.click(event);
    const picked = own ? undefined : readButton(event.value);
    const actionId = own?.actionId ?? picked?.actionId;
    if (!actionId || !event.threadId) return;
    const action = await this.host.store.findAction(actionId);
    if (!action) return;
    const user = this.userOf(event.user);
    const where = this.whereOf(event.threadId, event.raw);
    const postedHere = await this.postedHere(event.messageId, action);
    if (own) {
      const answer = own.answer(action);
      if (answer === 'form') return this.openForm(where, action, user, postedHere, event.triggerId);
      return this.answer(where, action, user, answer, undefined, postedHere);
    }
    const form = this.platform.formValues?.(event.raw) ?? {};
    if (picked) await this.answer(where, action, user, clickAnswer(action, picked.choice, form), undefined, postedHere);
  }

  /** Whether a message is the one that posted this action (its post, or the receipt of its delivery). */
  private async postedHere(messageId: string, action: ActionRecord): Promise<boolean> {
    if ((await this.postedAt(messageId))?.actionId === action.id) return true;
    // A card posted before posts were kept (Slack's, before it ran on Chat SDK): its delivery's receipt names it.
    return (await this.host.store.listDeliveries({ actionId: action.id })).some(
      (entry) => entry.event === 'action.required' && receiptOf(entry) === messageId,
    );
  }

  /** A click on a button that opens the platform's form: opened now, while its trigger lasts (not through the outbox). */
  private async openForm(
    where: Where,
    action: ActionRecord,
    user: ChannelUser,
    postedHere: boolean,
    triggerId: string | undefined,
  ): Promise<void> {
    const home = (await this.homeOf(action))?.home;
    if (!home || !belongs(home, where.place, postedHere)) return;
    if (action.status !== 'pending') return this.late(where.thread, user, action, undefined);
    const { adapter } = await this.load();
    await this.platform.own?.form?.open(adapter, triggerId, action);
  }

  /** A submitted form: the answer it holds, or the server's sentences under its fields (the form stays open). */
  private async onSubmit(form: OwnForm, event: ModalSubmitEvent): Promise<ModalResponse | undefined> {
    const read = form.read(event);
    const action = read && (await this.host.store.findAction(read.actionId));
    const home = action && (await this.homeOf(action))?.home;
    const place = home && placeOfConversation(home);
    if (!read || !action || !place?.startsWith(read.within)) return undefined;
    const user = this.userOf(event.user);
    let refused: Refusal | undefined;
    await this.answer(
      { thread: this.threadOf(place), place },
      action,
      user,
      form.answer(action, event),
      undefined,
      true,
      (refusal) => (refused = refusal),
    );
    return refused ? { action: 'errors', errors: form.errors(action, refused.fields, refused.text) } : undefined;
  }

  /**
   * Settles as `<platform>:<user id>` by the normal order, checked by the config's `access`; a request made
   * with `POST /api/requests` (or MCP) and posted here, as the Heed person the answerer maps to, whom its own
   * rule of who may answer then asks about. A refusal (already settled, a bad value, not allowed) is a note
   * to that person (or told to `refuse`); an unexpected failure is thrown, so the endpoint answers 5xx and the
   * platform tries again. `postedHere`: the click or reply was on the message that posted this action.
   */
  private async answer(
    where: Where,
    action: ActionRecord,
    user: ChannelUser,
    resolution: Record<string, unknown> | undefined,
    typed: string | undefined,
    postedHere = false,
    refuse: (refusal: Refusal) => void = (refusal) => this.note(where.thread, user, refusal.text),
  ): Promise<void> {
    const found = await this.homeOf(action);
    if (!found) return;
    const { conversation, home } = found;
    const request = holdsRequest(conversation);
    // A button or reply names an action of this very thread (a request: the message that posted it), or nothing.
    if (!belongs(home, where.place, postedHere)) return;
    const mapped = await mapPerson(user, this.config.userId);
    const caller = request ? this.personFor(user, mapped.userId) : this.callerFor(user.id, user);
    if (action.status !== 'pending') return this.late(where.thread, user, action, resolution, caller?.userId, refuse);
    if (!resolution) {
      if (typed !== undefined)
        refuse({ text: `I could not read “${typed}” as an answer to this request.`, fields: [] });
      return;
    }
    if (!caller)
      return refuse({
        text: `your ${this.platform.title} account is not linked to a person in Heed, so your answer cannot count here; answer it in Heed.`,
        fields: [],
      });
    await this.remember(user);
    if (!request) await recordParticipant(this.host.store, home.id, mapped);
    const access = this.config.access;
    try {
      await this.recorded(
        (onRecorded) =>
          // A child agent's request is answered through the thread's conversation, as its `via` actions are.
          this.host.settle(home.id, action.id, resolution, {
            caller,
            fromChannel: { name: this.name, ...(access ? { may: (target) => access(user, target) } : {}) },
            onRecorded,
          }),
        where.thread,
      );
    } catch (error) {
      if (!HeedError.isInstance(error)) throw error;
      if (error.code === 'action_not_pending' || error.code === 'action_expired') {
        const now = await this.host.store.getAction(conversation.id, action.id);
        return this.late(where.thread, user, now ?? action, resolution, undefined, refuse);
      }
      // A request's conversation the person may not see: what they are told is that they may not answer it.
      const fields = Array.isArray(error.details?.fields) ? (error.details.fields as Refusal['fields']) : [];
      refuse({ text: request && error.code === 'not_found' ? NOT_YOURS : error.message, fields });
    }
  }

  private async late(
    threadId: string,
    user: ChannelUser,
    action: ActionRecord,
    resolution: Record<string, unknown> | undefined,
    answeredAs = this.callerFor(user.id).userId,
    refuse: (refusal: Refusal) => void = (refusal) => this.note(threadId, user, refusal.text),
  ): Promise<void> {
    // The same person's same answer again (a platform's retry, a double click, the other instance): it counted; say nothing.
    if (resolution && action.resolvedBy === answeredAs && sameAnswer(action.resolution, resolution)) return;
    const own = this.platform.own;
    const outcome = own ? own.outcome(action) : outcomeText(action, await this.names(), this.platform.cardText);
    refuse({ text: `This request was already settled. ${outcome}`.trim(), fields: [] });
  }

  /** A write whose work goes on after it is recorded (src/channels/channel.ts, `recordedThen`). */
  private recorded(run: (onRecorded: () => void) => Promise<unknown>, threadId: string): Promise<void> {
    return recordedThen(this.host, this.platform.title, run, async (text) =>
      (await this.load()).adapter.postMessage(threadId, this.line(text)),
    );
  }

  /** A line of text as the platform posts it. */
  private line(text: string): AdapterPostableMessage {
    return this.platform.own?.text(text) ?? { markdown: text };
  }

  /** The conversation of a place, made on its first message (src/channels/channel.ts, `ThreadConversations`). */
  conversationFor(place: string): Promise<string> {
    return this.threads.open(place, this.config.agent, { [this.name]: { thread: place } });
  }

  /**
   * The request a comment command answers: the thread's pending one (the oldest, when several wait; a child
   * agent's after the thread's own), else its latest (settled: the person is told who answered it).
   */
  private async answeredBy(place: string): Promise<ActionRecord | undefined> {
    const conversation = await this.host.store.getConversation(await this.threads.idOf(place));
    if (!conversation) return undefined;
    const actions = await this.host.store.listActions(conversation.id);
    return (
      actions.find((action) => action.status === 'pending') ??
      (await childPendingRecords(this.host, conversation))[0]?.action ??
      actions.at(-1)
    );
  }

  /**
   * An action's conversation, and the one whose thread shows it: itself, or for a child agent's (at any
   * depth), the conversation the thread's person started.
   */
  private async homeOf(
    action: ActionRecord,
  ): Promise<{ conversation: ConversationRecord; home: ConversationRecord } | undefined> {
    const conversation = await this.host.store.getConversation(action.conversationId);
    if (!conversation) return undefined;
    return { conversation, home: await rootOf(this.host.store, conversation) };
  }

  /**
   * A note to one person (best effort, not kept in the outbox): a reply in the thread naming them, or, where
   * the platform has them (`privateNotes`), a message only they see.
   */
  private note(threadId: string, user: ChannelUser, text: string): void {
    const sent = this.load()
      .then(({ adapter }) =>
        this.platform.privateNotes && adapter.postEphemeral
          ? adapter.postEphemeral(threadId, user.id, this.line(text.charAt(0).toUpperCase() + text.slice(1)))
          : adapter.postMessage(threadId, this.line(`${this.mention(user)}: ${text}`)),
      )
      .catch((error: unknown) =>
        this.host.logger.warn(
          { channel: this.name, user: user.id, ...errorFields(error) },
          `Heed: a ${this.platform.title} note to one person could not be posted`,
        ),
      );
    void this.host.track(sent);
  }

  private mention(user: ChannelUser): string {
    return this.platform.mention?.(user) ?? (user.userName ? `@${user.userName}` : user.id);
  }

  /** Keeps a person's name, for the card that says who answered. */
  private async remember(user: ChannelUser): Promise<void> {
    if (!user.userName) return;
    await this.host.store.putValues([{ scope: `${this.name}:people`, key: user.id, value: user.userName }]);
  }

  /** Who a user id is, as a settled card says it (`@ada`, else the id). */
  private async names(): Promise<(userId: string | null) => string> {
    const known = new Map(
      (await this.host.store.listValues(`${this.name}:people`)).map((entry) => [entry.key, entry.value]),
    );
    return (userId) => {
      if (!userId) return 'someone';
      const id = userId.startsWith(`${this.name}:`) ? userId.slice(this.name.length + 1) : undefined;
      const name = id === undefined ? undefined : known.get(id);
      return name ? `@${name}` : userId;
    };
  }

  private withoutMention(text: string, name: string | undefined): string {
    const mention = name ? new RegExp(`@${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b\\s*`, 'gi') : undefined;
    // Discord's text names the bot as `<@id>`: a leading one is the mention itself.
    return (mention ? text.replace(mention, '') : text).replace(/^\s*<@!?\w+>\s*/, '').trim();
  }

  /** The request a posted message carries. */
  private async postedAt(messageId: string): Promise<{ conversationId: string; actionId: string } | undefined> {
    const [row] = await this.host.store.listValues(`${this.name}:post:${messageId}`);
    return row ? (JSON.parse(row.value) as { conversationId: string; actionId: string }) : undefined;
  }

  async deliver(delivery: DeliveryRecord): Promise<JsonObject | undefined> {
    if (delivery.target.type !== 'channel') throw new DeliveryDropped('not a channel delivery');
    const threadId = this.threadOf(delivery.target.channel);
    const { adapter } = await this.load();
    const store = this.host.store;
    const own = this.platform.own;
    if (delivery.event === 'message.created') {
      const message = (await store.listMessages(delivery.conversationId)).find(
        (entry) => entry.id === delivery.actionId,
      );
      if (!message) throw new DeliveryDropped('the message is gone');
      const posted = await adapter.postMessage(threadId, this.line(replyText(message)));
      return { messageId: posted.id };
    }
    const action = await store.getAction(delivery.conversationId, delivery.actionId);
    if (!action) throw new DeliveryDropped('the action is gone');
    const by = await this.names();
    // A child agent's request, shown in its parent's thread, says which agent asks.
    const asking = await store.getConversation(delivery.conversationId);
    const from = asking && parentOf(asking) ? asking.agent : undefined;
    if (delivery.event === 'action.required') {
      // As it stands now: a request settled before it could be posted is posted as settled.
      const posted = await adapter.postMessage(
        threadId,
        own ? own.request(action, from) : this.requestMessage(action, by, from),
      );
      await store.putValues([
        {
          scope: `${this.name}:post:${posted.id}`,
          key: '',
          value: JSON.stringify({ conversationId: action.conversationId, actionId: action.id }),
        },
      ]);
      return { messageId: posted.id };
    }
    if (delivery.event === 'action.reminder') {
      // A reply in the request's thread; not sent for a request settled or made open-ended meanwhile.
      if (action.status !== 'pending' || action.expiresAt === null)
        throw new DeliveryDropped('the action no longer waits for a deadline');
      const posted = await adapter.postMessage(
        threadId,
        own ? own.reminder(action) : { markdown: reminderText(action) },
      );
      return { messageId: posted.id };
    }
    // Settled: edit the posted request. Written after it, so it is normally sent after it too.
    const post = (await store.listDeliveries({ actionId: action.id })).find(
      (entry) => entry.event === 'action.required' && entry.target.type === 'channel',
    );
    if (!post || post.status === 'failed' || post.status === 'dropped')
      throw new DeliveryDropped('the request was never posted');
    const messageId = receiptOf(post);
    if (post.status !== 'delivered' || messageId === undefined) throw new Error('the request is not posted yet');
    await adapter.editMessage(
      threadId,
      messageId,
      own
        ? own.settled(action, from)
        : {
            card: settledCard(action, by, this.platform.cardText, from),
            fallbackText: outcomeText(action, by, this.platform.cardText),
          },
    );
    // A lapse also says so in the thread: an edited card notifies nobody.
    const lapse = lapseText(action);
    if (lapse) await adapter.postMessage(threadId, this.line(lapse));
    return undefined;
  }

  /** A request's card from cards.ts: where the platform has forms, with its typed inputs. */
  private requestMessage(
    action: ActionRecord,
    by: (userId: string | null) => string,
    from: string | undefined,
  ): RequestMessage {
    const card = requestCard(action, this.platform.typed, by, this.platform.cardText, from);
    const form = this.platform.typed.forms ? requestForm(action) : undefined;
    return { card, fallbackText: card.title ?? '', ...(form ? { form } : {}) };
  }
}

/** Where a click, reply or form came from: the adapter's thread, and the place it stands for. */
interface Where {
  thread: string;
  place: string;
}

/** The id of the message a delivery posted (Slack's receipts before it ran on Chat SDK kept it as `ts`). */
function receiptOf(delivery: DeliveryRecord): string | undefined {
  const id = delivery.receipt?.messageId ?? delivery.receipt?.ts;
  return typeof id === 'string' ? id : undefined;
}

/** Where a conversation's cards are: its thread, or, for a request posted to a channel, the place it was posted to. */
function placeOfConversation(conversation: ConversationRecord): string | undefined {
  return (holdsRequest(conversation) ? requestSettings(conversation).channel : conversation.channel) ?? undefined;
}

/** Whether an answer given at `place` may be about this conversation: it is that thread's, or a request posted there. */
function belongs(conversation: ConversationRecord, place: string, postedHere: boolean): boolean {
  return holdsRequest(conversation) ? postedHere : conversation.channel === place;
}

const NOT_YOURS = 'You may not answer this request.';

/** Chat SDK's logger onto Heed's: its warnings and errors only (its info is per-request chatter). */
function chatLogger(logger: Logger, platform: string): ChatLogger {
  const fields = (args: unknown[]) => ({ channel: platform, ...(args.length ? { detail: String(args[0]) } : {}) });
  const make = (): ChatLogger => ({
    child: () => make(),
    debug: () => {},
    info: () => {},
    warn: (message, ...args) => logger.warn(fields(args), `Chat SDK: ${message}`),
    error: (message, ...args) => logger.error(fields(args), `Chat SDK: ${message}`),
  });
  return make();
}

/** True when what was stored says what was given: each field given has the stored value. */
function sameAnswer(stored: ActionRecord['resolution'], given: Record<string, unknown>): boolean {
  return (
    stored !== null &&
    Object.entries(given).every(([key, value]) => isDeepStrictEqual((stored as Record<string, unknown>)[key], value))
  );
}
