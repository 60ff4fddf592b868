import type { NotifyConfig } from '../config.js';
import type { Engine, Outbox } from '../engine/engine.js';
import type { Change, NewDelivery } from '../store/store.js';
import type { ActionRecord, ConversationRecord } from '../types.js';
import { actionView } from '../views.js';
import { defaults } from '../config-schema.js';
import { mailer } from './email.js';
import { vapidKeys, webPushLibrary, type VapidKeys } from './push.js';
import { startDeliverer, type Deliverer } from './deliverer.js';
import { actionLinks, answerableByLink, linkExpiry, LinkSigner, type ActionLinks, type LinkClaims } from './links.js';
import { deliveriesFor, hasTargets, targetsFor } from './outbox.js';
import { delegatesInForce } from '../engine/delegation.js';
import { callbackDeliveries } from './callbacks.js';
import { requestSettings } from '../protocol/request-conversation.js';
import { a2aPushDeliveries, movesTask, type A2aPushSender } from './a2a-push.js';
import { channelDeliveries, channelName, type ChannelAdapter } from '../channels/channel.js';
import { parentOf } from '../engine/children.js';

/**
 * Reaching people (docs/notifications.md), as one object a Heed holds: what each commit must also write (the
 * outbox), the background deliverer, and the answer links' secret.
 */
export class Notifier implements Outbox {
  readonly config: NotifyConfig;
  /** Where links point when `publicUrl` is not set: `heed serve` puts its own address here. */
  fallbackUrl?: string;
  private signer?: Promise<LinkSigner>;
  private keys?: Promise<VapidKeys>;
  private deliverer?: Deliverer;

  /** Chat workspaces (docs/channels.md) by name: what their conversations post goes through this outbox too. */
  readonly channels = new Map<string, ChannelAdapter>();
  /** True when a webhook or an email is configured for the server or any agent. */
  private readonly notifying: boolean;
  /** Posts an A2A task's state to a push config (docs/a2a.md); set by the HTTP app that serves A2A. */
  a2aPush?: A2aPushSender;

  constructor(
    private readonly engine: Engine,
    config: NotifyConfig | undefined,
    channels: ChannelAdapter[] = [],
  ) {
    this.config = config ?? {};
    for (const adapter of channels) this.channels.set(adapter.name, adapter);
    const targets = [undefined, ...engine.agents.values()].map((agent) => targetsFor(this.config, agent));
    this.notifying = targets.some(hasTargets);
    // nodemailer loads only when an email is configured; a missing one fails createHeed with its `npm i` line.
    if (targets.some((target) => target.email !== undefined)) mailer();
    if (this.config.push) webPushLibrary();
    this.active = this.notifying || this.channels.size > 0 || (this.config.callbackHosts ?? []).length > 0;
  }

  /**
   * True when the server or any agent has a webhook, an email or a channel to send to, or requests may
   * have callbacks (agents and config are fixed at start).
   */
  readonly active: boolean;

  /**
   * The notifications a change causes; read once per change that raises or settles an action (or, with channels,
   * writes a message). Asked only while `active` (src/engine/transact.ts).
   */
  async deliveriesFor(
    change: Change,
    known: { conversation?: ConversationRecord; actions?: ActionRecord[] } = {},
  ): Promise<NewDelivery[]> {
    const escalations = (change.revise ?? []).filter((x) => x.reason === 'escalation');
    const reminders = (change.revise ?? []).filter((x) => x.reason === 'reminder');
    const aboutActions = Boolean(
      change.actions?.length || change.settle?.length || escalations.length || reminders.length,
    );
    const replies = this.channels.size > 0 && (change.messages ?? []).some((message) => message.role === 'assistant');
    // A2A push configs need callback hosts to post to, so a server without any reads nothing more here.
    const pushes = (this.config.callbackHosts ?? []).length > 0 && movesTask(change);
    if (!aboutActions && !replies && !pushes) return [];
    // The runner's snapshot, when it holds one: the conversation as this change found it.
    const conversation =
      change.create ?? known.conversation ?? (await this.engine.store.getConversation(change.conversationId));
    if (!conversation) return [];
    const at = change.events?.[0]?.at ?? change.set?.updatedAt ?? this.engine.now();
    // A request made with POST /api/requests (or MCP) may be posted to a channel too: its cards, no replies.
    const postedTo = requestSettings(conversation).channel;
    // A child agent's conversation (docs/concepts.md, Agents that call agents) lives in its lead's thread:
    // its requests are posted there, not its replies (the child's reply is its parent's tool result).
    const posted = parentOf(conversation) ? { ...change, messages: [] } : change;
    const posts = [
      ...(conversation.channel && this.channels.has(channelName(conversation.channel))
        ? channelDeliveries(posted, conversation, at)
        : []),
      ...(postedTo && this.channels.has(channelName(postedTo))
        ? channelDeliveries({ ...change, messages: [] }, { channel: postedTo }, at)
        : []),
      ...callbackDeliveries(change, conversation, at),
      ...(pushes ? a2aPushDeliveries(change, conversation, at) : []),
    ];
    if (!aboutActions || !this.notifying) return posts;
    const targets = targetsFor(this.config, this.engine.agents.get(conversation.agent));
    if (!hasTargets(targets)) return posts;
    // An escalated approval is announced again, as asked now (with its new approvers); a reminder goes
    // to whoever the request went to.
    const revised = async (list: typeof escalations) => {
      const out: ActionRecord[] = [];
      for (const x of list) {
        const action = known.actions
          ? known.actions.find((entry) => entry.id === x.id)
          : await this.engine.store.getAction(change.conversationId, x.id);
        if (action) out.push({ ...action, request: x.request });
      }
      return out;
    };
    const escalated = await revised(escalations);
    const reminded = await revised(reminders);
    // Push closes the notifications of what this change settles, so it needs whom each one waited on.
    const settled: ActionRecord[] = [];
    if (targets.push)
      for (const x of change.settle ?? []) {
        const action = known.actions
          ? known.actions.find((entry) => entry.id === x.id)
          : await this.engine.store.getAction(change.conversationId, x.id);
        if (action) settled.push(action);
      }
    return [
      ...posts,
      ...deliveriesFor(change, {
        conversation,
        targets,
        at,
        escalated,
        reminded,
        settled,
        ...((targets.email || targets.push) && (change.actions?.length || escalated.length || settled.length)
          ? { delegates: await delegatesInForce(this.engine.store, this.engine.now()) }
          : {}),
        view: (action) => actionView(this.engine, action, conversation.agent),
      }),
    ];
  }

  /** Starts the deliverer (when anything is configured to be sent to). */
  start(): void {
    if (this.active && !this.deliverer) this.deliverer = startDeliverer(this.engine, this);
  }

  /** Loads each channel's adapter (a configured platform whose package is missing fails the start). */
  async startChannels(): Promise<void> {
    await Promise.all([...this.channels.values()].map((channel) => channel.start?.()));
  }

  /** Closes the sockets channels hold themselves (before the engine stops: what they took gets recorded). */
  async stopListening(): Promise<void> {
    await Promise.all([...this.channels.values()].map((channel) => channel.stopListening?.()));
  }

  /** A commit wrote deliveries: look for them now rather than at the next poll. */
  wake(): void {
    this.deliverer?.wake();
  }

  async close(): Promise<void> {
    await this.deliverer?.stop();
    await Promise.all([...this.channels.values()].map((channel) => channel.close?.()));
  }

  /** The VAPID keys push is signed with (configured, or made once and kept in the store); rejects without `notify.push`. */
  vapidKeys(): Promise<VapidKeys> {
    const push = this.config.push;
    if (!push) return Promise.reject(new Error('notify.push is not configured'));
    this.keys ??= vapidKeys(push, this.engine.store);
    this.keys.catch(() => (this.keys = undefined));
    return this.keys;
  }

  linkSigner(): Promise<LinkSigner> {
    this.signer ??= (async () =>
      new LinkSigner(this.config.linkSecret ?? (await this.engine.store.secret('answer-links'))))();
    this.signer.catch(() => (this.signer = undefined));
    return this.signer;
  }

  /** The answer links for one recipient of an action, or undefined when there is no `publicUrl` or nothing to answer. */
  async links(
    action: ActionRecord,
    conversation: ConversationRecord,
    recipient: string | null,
  ): Promise<ActionLinks | undefined> {
    const base = this.config.publicUrl ?? this.fallbackUrl;
    if (!base || action.status !== 'pending' || !answerableByLink(action)) return undefined;
    const now = this.engine.clock().getTime();
    const expiresAt = linkExpiry(action, now, this.config.linkTtlMinutes ?? defaults.linkTtlMinutes);
    if (expiresAt <= now) return undefined;
    const token = (await this.linkSigner()).sign({
      conversationId: conversation.id,
      actionId: action.id,
      recipient,
      expiresAt,
    });
    return actionLinks(base, token, action);
  }

  /** The claims of a genuine, unexpired token; undefined for anything else. */
  async readToken(token: string): Promise<LinkClaims | undefined> {
    return (await this.linkSigner()).verify(token, this.engine.clock().getTime());
  }

  /**
   * The claims of a genuine token, expired or not; undefined for a forged or tampered one. Only for saying
   * that the request a link named has lapsed (its link ends with it): it never opens the request.
   */
  async readEndedToken(token: string): Promise<LinkClaims | undefined> {
    return (await this.linkSigner()).verify(token, Number.NEGATIVE_INFINITY);
  }
}
