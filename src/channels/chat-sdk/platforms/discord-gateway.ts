import type { REST as RestClient } from '@discordjs/rest';
import type { WebSocketManager as SocketManager } from '@discordjs/ws';

/** What the Gateway reads of `channels.discord` (discord.ts). */
interface GatewayConfig {
  botToken: string;
  apiUrl?: string;
  gateway?: boolean | { leaseMs?: number };
}
import { errorFields } from '../../../logger.js';
import { importOptional } from '../../../optional-dependency.js';
import type { ChannelInbox, Listener } from '../chat-channel.js';
import { Lease } from '../lease.js';

type RestModule = typeof import('@discordjs/rest');
type SocketModule = typeof import('@discordjs/ws');

/** Guilds, guild messages, direct messages and message content: what mentions and replies need. */
const intents = (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15);
/** The Gateway events the forwarded path handles that Heed acts on (it has no reaction handlers). */
const handed = new Set(['MESSAGE_CREATE']);
const defaultLeaseMs = 30_000;
/** How often a failed hand-over is tried again, and the waits between (a socket has no retry of its own). */
const retryDelaysMs = [250, 1000, 4000];

/**
 * Discord's Gateway held by Heed itself (`channels.discord.gateway`, docs/channels.md), by one instance of
 * a deployment at a time: the one holding the lease in the store. Each message is handed to the channel's
 * endpoint code as a forwarded Gateway event with the bot token, so it is proven, recorded and
 * deduplicated by message id exactly as a forwarded one. Loads `@discordjs/ws` and `@discordjs/rest`
 * (a missing one fails the start with its `npm i` line).
 */
export async function listenToGateway(config: GatewayConfig, inbox: ChannelInbox): Promise<Listener | undefined> {
  if (!config.gateway) return undefined;
  const feature = 'The Discord channel with gateway: true';
  const socket = await importOptional<SocketModule>('@discordjs/ws', feature);
  const rest = await importOptional<RestModule>('@discordjs/rest', feature);
  const leaseMs = (typeof config.gateway === 'object' ? config.gateway.leaseMs : undefined) ?? defaultLeaseMs;
  const holder = new GatewayHolder(config, inbox, new Lease(inbox.store, 'discord:gateway', leaseMs), () => {
    const client: RestClient = new rest.REST(restOptions(config.apiUrl)).setToken(config.botToken);
    return new socket.WebSocketManager({ token: config.botToken, intents, rest: client });
  });
  holder.start();
  return holder;
}

/** `@discordjs/rest` adds `/v<version>` itself: Heed's `apiUrl` (which has it, like the adapter's) is split. */
function restOptions(apiUrl: string | undefined): { api?: string; version?: string } {
  if (!apiUrl) return {};
  const base = apiUrl.replace(/\/+$/, '');
  const versioned = /^(.*)\/v(\d+)$/.exec(base);
  return versioned ? { api: versioned[1], version: versioned[2] } : { api: base };
}

class GatewayHolder implements Listener {
  private manager?: SocketManager;
  /** When the lease this instance holds lapses (0: it holds none). */
  private heldUntil = 0;
  private timer?: NodeJS.Timeout;
  private ticking: Promise<void> = Promise.resolve();
  private closed = false;
  /** Hand-overs in flight, by channel: a channel's messages are handed over in the order they came. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly config: GatewayConfig,
    private readonly inbox: ChannelInbox,
    private readonly lease: Lease,
    private readonly createManager: () => SocketManager,
  ) {}

  start(): void {
    // Renewed three times a lease: a store that fails once does not cost the socket.
    const every = Math.max(1, Math.floor(this.lease.leaseMs / 3));
    const run = (): void => {
      this.ticking = this.tick()
        .catch(() => undefined)
        .finally(() => {
          if (!this.closed) this.timer = setTimeout(run, every);
        });
    };
    run();
  }

  /** Takes or renews the lease; connects when it holds it, disconnects when it no longer does. */
  private async tick(): Promise<void> {
    if (this.closed) return;
    try {
      this.heldUntil = (await this.lease.hold()) ?? 0;
    } catch (error) {
      this.inbox.logger.warn(
        { channel: 'discord', ...errorFields(error) },
        "Heed: the lease on Discord's Gateway could not be renewed",
      );
    }
    // Dropped before the lease lapses (a renewal's wait early), so no other instance holds it meanwhile.
    const holds = this.heldUntil - this.lease.leaseMs / 3 > Date.now();
    if (holds && !this.manager) this.connect();
    else if (!holds && this.manager) await this.disconnect();
  }

  /**
   * Opens the socket in the background: the lease goes on being renewed meanwhile (a connect can wait long
   * on an unreachable Gateway), and a lease lost meanwhile closes it.
   */
  private connect(): void {
    const manager = this.createManager();
    manager.on('dispatch', ({ data }) => {
      if (!data.t || !handed.has(data.t)) return;
      this.enqueue((data.d as { channel_id?: string }).channel_id ?? '', { type: data.t, data: data.d });
    });
    manager.on('error', ({ error }) =>
      this.inbox.logger.warn({ channel: 'discord', ...errorFields(error) }, "Heed: Discord's Gateway socket failed"),
    );
    this.manager = manager;
    manager.connect().then(
      () => this.inbox.logger.info({ channel: 'discord' }, "Heed: holding Discord's Gateway socket"),
      async (error: unknown) => {
        if (this.manager !== manager) return;
        // Tried again at the next renewal of the lease.
        this.inbox.logger.error(
          { channel: 'discord', ...errorFields(error) },
          "Heed: Discord's Gateway could not be reached",
        );
        await this.disconnect();
      },
    );
  }

  private async disconnect(): Promise<void> {
    const manager = this.manager;
    this.manager = undefined;
    if (!manager) return;
    manager.removeAllListeners('dispatch');
    await Promise.resolve(manager.destroy()).catch(() => undefined);
  }

  private enqueue(channelId: string, event: { type: string; data: unknown }): void {
    const previous = this.queues.get(channelId) ?? Promise.resolve();
    const next = previous.then(() => this.handOver(event));
    this.queues.set(channelId, next);
    void this.inbox.track(
      next.finally(() => {
        if (this.queues.get(channelId) === next) this.queues.delete(channelId);
      }),
    );
  }

  /**
   * The event as a forwarded one, to the endpoint's code. It is recorded before this resolves; a failure to
   * record is tried again a few times, then logged (the Gateway resends nothing once dispatched).
   */
  private async handOver(event: { type: string; data: unknown }): Promise<void> {
    const body = JSON.stringify({ type: `GATEWAY_${event.type}`, timestamp: Date.now(), data: event.data });
    const headers = new Headers({
      'content-type': 'application/json',
      'x-discord-gateway-token': this.config.botToken,
    });
    for (let attempt = 0; ; attempt++) {
      try {
        await this.inbox.receive({ headers, body });
        return;
      } catch (error) {
        const wait = retryDelaysMs[attempt];
        if (wait === undefined || this.closed) {
          this.inbox.logger.error(
            { channel: 'discord', ...errorFields(error) },
            "Heed: a message from Discord's Gateway could not be recorded; it is lost",
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** Closes the socket, waits for messages being handed over, and gives the lease up for another instance. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.ticking;
    await this.disconnect();
    await Promise.all(this.queues.values());
    await this.lease.release().catch(() => undefined);
  }
}
