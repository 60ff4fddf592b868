import type { Logger as ChatLogger, StateAdapter } from 'chat';
import type { ChannelStateConfig } from '../../config-schema.js';
import { HeedError } from '../../errors.js';
import { importOptional } from '../../optional-dependency.js';

/** The package of Chat SDK's Redis state, pinned with `chat` (docs/channels.md). */
export const redisStatePackage = '@chat-adapter/state-redis';

/** The few parts of the package Heed calls: its adapter is typed by Chat SDK's `StateAdapter`. */
interface RedisStateModule {
  createRedisState(options: { url: string; keyPrefix?: string; logger?: ChatLogger }): StateAdapter & {
    getClient(): RedisClient;
  };
}
interface RedisClient {
  once(event: 'error', listener: (error: unknown) => void): unknown;
  off(event: 'error', listener: (error: unknown) => void): unknown;
  destroy(): void;
}

/**
 * Chat SDK's own Redis state adapter, connected (`channels.state.redis`, docs/channels.md). The package is
 * loaded only here, so a config without `channels.state` never needs it; missing, the start fails with its
 * `npm i` line. A server that does not answer fails the start too: node-redis would otherwise retry the
 * first connection for ever and the start would never end. Once connected, it reconnects by itself.
 */
export async function redisState(
  config: ChannelStateConfig,
  feature: string,
  logger: ChatLogger,
): Promise<StateAdapter> {
  const module = await importOptional<RedisStateModule>(redisStatePackage, `${feature} with channels.state.redis`);
  const state = module.createRedisState({ url: config.redis, keyPrefix: config.keyPrefix, logger });
  const client = state.getClient();
  let onError: (error: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    onError = reject;
    client.once('error', onError);
  });
  const connecting = state.connect();
  // Stopped below when the first attempt fails: that connect never settles, and must not be unhandled.
  connecting.catch(() => {});
  try {
    await Promise.race([connecting, failed]);
  } catch (error) {
    client.destroy();
    throw new HeedError(
      'store_unavailable',
      `${feature} keeps Chat SDK's state in Redis (channels.state.redis), which did not answer at ${redacted(config.redis)}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  } finally {
    client.off('error', onError);
  }
  return state;
}

/** The URL without its password, for messages. */
function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
