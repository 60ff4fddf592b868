import { describe, expect, it } from 'vitest';
import { dropPrefix, redisServer, testPrefix } from '../../../test/redis.js';
import { HeedError } from '../../errors.js';
import { redisState } from './redis-state.js';
import { stateContract } from './state-contract.js';

/**
 * Chat SDK's own Redis state adapter (`channels.state.redis`) against the same contract as Heed's state
 * (src/channels/chat-sdk/state-contract.ts), on a real Redis server. Redis counts lapses itself: the test
 * moves its clock by shortening every key's time to live under the test's prefix.
 */

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const open = (keyPrefix: string) => redisState({ redis: redisServer!, keyPrefix }, 'The test', silent);

if (redisServer)
  stateContract("Chat SDK's Redis adapter", async () => {
    const prefix = testPrefix();
    const state = await open(prefix);
    const client = (state as unknown as { getClient(): RedisCommands }).getClient();
    return {
      state,
      another: () => open(prefix),
      now: Date.now,
      advance: async (ms) => {
        for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 100 }))
          for (const key of keys) {
            const left = await client.pTTL(key);
            if (left < 0) continue;
            if (left <= ms) await client.del(key);
            else await client.pExpire(key, left - ms);
          }
      },
      dropsLapsedQueueEntries: false,
      close: async () => {
        await state.disconnect();
        await dropPrefix(prefix);
      },
    };
  });

interface RedisCommands {
  scanIterator(options: { MATCH: string; COUNT: number }): AsyncIterable<string[]>;
  pTTL(key: string): Promise<number>;
  pExpire(key: string, ms: number): Promise<number>;
  del(key: string | string[]): Promise<number>;
}

describe('channels.state.redis at start', () => {
  it('a server that does not answer stops the start, naming the URL without its password', async () => {
    const refused = await redisState(
      { redis: 'redis://heed:secret@127.0.0.1:1/0', keyPrefix: testPrefix() },
      'The Telegram channel',
      silent,
    ).catch((error: unknown) => error);
    expect(HeedError.isInstance(refused) && refused.code).toBe('store_unavailable');
    expect((refused as Error).message).toContain('redis://heed:***@127.0.0.1:1/0');
    expect((refused as Error).message).not.toContain('secret');
  });
});
