import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { freshDatabase, pgServer, type TestDatabase } from '../../../test/pg.js';
import { memoryStore } from '../../store/memory/memory-store.js';
import { postgresStore } from '../../store/postgres/postgres-store.js';
import { sqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import { HeedState } from './heed-state.js';
import { stateContract } from './state-contract.js';

/** Chat SDK's state over each of Heed's stores (src/channels/chat-sdk/state-contract.ts), with a clock the test moves. */
let database: TestDatabase | undefined;
let schemas = 0;
beforeAll(async () => {
  if (pgServer) database = await freshDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const stores: Array<[string, () => { store: Store; cleanup: () => void }]> = [
  ['memory', () => ({ store: memoryStore(), cleanup: () => {} })],
  [
    'sqlite',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'heed-state-'));
      return { store: sqliteStore({ path: join(dir, 'heed.db') }), cleanup: () => rmSync(dir, { recursive: true }) };
    },
  ],
];
if (pgServer)
  stores.push([
    'postgres',
    () => ({
      store: postgresStore({ connectionString: database!.url, schema: `chat_state_${++schemas}_${process.pid}` }),
      cleanup: () => {},
    }),
  ]);

for (const [name, open] of stores)
  stateContract(`Heed's state over the ${name} store`, async () => {
    const { store, cleanup } = open();
    await store.migrate();
    let now = 1_000_000;
    const state = new HeedState(store, { now: () => now });
    await state.connect();
    return {
      state,
      another: async () => new HeedState(store, { now: () => now }),
      now: () => now,
      advance: async (ms) => {
        now += ms;
      },
      dropsLapsedQueueEntries: true,
      close: async () => {
        await state.disconnect();
        await store.close();
        cleanup();
      },
    };
  });
