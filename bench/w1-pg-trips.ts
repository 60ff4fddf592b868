import pg from 'pg';
import { createHeed, postgresStore, type Store } from '../src/index.js';
import { freshDatabase } from '../test/pg.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import { pauseHalf, resumeHalf } from './w1-approval.js';

/**
 * `npx tsx bench/w1-pg-trips.ts`: the round trips, commits and NOTIFYs of one W1 cycle on PostgreSQL,
 * counted by wrapping the pool's `query` (20 cycles after 5 warm-up), with each statement's start printed.
 * A bare LISTEN on the channel counts the NOTIFYs sent (it holds no listener lock, so it wakes none).
 */
const cycles = 20;
const database = await freshDatabase('heed_trips');
const pool = new pg.Pool({ connectionString: database.url, max: 10 });
const statements: string[] = [];
let counting = false;
const counted = new Proxy(pool, {
  get(target, key, receiver) {
    const value: unknown = Reflect.get(target, key, receiver);
    if (key === 'query')
      return (query: string | { text: string }, ...rest: unknown[]) => {
        if (counting) statements.push(typeof query === 'string' ? query : query.text);
        return (target.query as (...args: unknown[]) => unknown)(query, ...rest);
      };
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  },
});
const watcher = new pg.Client({ connectionString: database.url });
await watcher.connect();
let notifies = 0;
watcher.on('notification', () => counting && notifies++);
await watcher.query('LISTEN heed_events');
const store: Store = postgresStore({ pool: counted });
let commits = 0;
const commit = store.commit.bind(store);
store.commit = (change) => (counting && commits++, commit(change));
const { agent, model } = benchRefundAgent();
const heed = createHeed({ agents: [agent], store, sweepIntervalMs: 0 });
const cycle = async () => {
  await resumeHalf(heed, await pauseHalf(heed));
  forgetCalls(model);
};
for (let i = 0; i < 5; i++) await cycle();
counting = true;
for (let i = 0; i < cycles; i++) await cycle();
await new Promise((resolve) => setTimeout(resolve, 300));
counting = false;
for (const text of statements.slice(0, statements.length / cycles))
  console.log(`  ${text.replace(/\s+/g, ' ').slice(0, 100)}`);
console.log(
  `per cycle: ${statements.length / cycles} round trips, ${commits / cycles} commits, ${notifies / cycles} NOTIFYs`,
);
await heed.close();
await watcher.end();
await pool.end();
await database.drop();
