import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { createRedisState } from '@chat-adapter/state-redis';

/**
 * The Redis server the tests run against: `HEED_TEST_REDIS_URL`, else the local one. When none answers,
 * `redisServer` is undefined and Redis tests skip (`describe.skipIf(!redisServer)`), except under
 * `CI=true`, where importing this module fails instead. Each test uses keys under a prefix of its own
 * (`testPrefix()`) and deletes them after (`dropPrefix`).
 */
const url = process.env.HEED_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const redisServer: string | undefined = (await answers(url)) ? url : undefined;
if (!redisServer && process.env.CI === 'true') throw new Error(`CI=true but no Redis server answered at ${url}.`);
if (!redisServer) console.warn(`(no Redis server answered at ${url}; Redis tests are skipped)`);

/** A key prefix no other test or run uses. */
export function testPrefix(): string {
  return `heed-test:${process.pid}:${randomBytes(6).toString('hex')}`;
}

/** A connected client of the test server, through Chat SDK's adapter (the only Redis client Heed installs). */
export async function redisClient() {
  const state = createRedisState({ url: redisServer!, keyPrefix: 'unused' });
  await state.connect();
  return { client: state.getClient(), close: () => state.disconnect() };
}

/** Deletes every key under `prefix`. */
export async function dropPrefix(prefix: string): Promise<void> {
  const { client, close } = await redisClient();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 100 }))
      if (keys.length) await client.del(keys);
  } finally {
    await close();
  }
}

/** Whether something answers PING at `url`'s host and port (without a password: a local test server). */
function answers(target: string): Promise<boolean> {
  const { hostname, port } = new URL(target);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379), timeout: 2000 });
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
