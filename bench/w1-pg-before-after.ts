import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { freshDatabase, type TestDatabase } from '../test/pg.js';
import { pgFloor } from './w1-pg-floor.js';

/**
 * `npx tsx bench/w1-pg-before-after.ts <before tree> [warm-up] [cycles]`: W1 of two trees in one process,
 * in alternating blocks, so a loaded machine slows both alike: Heed on PostgreSQL (each tree on a database
 * of its own), Heed on SQLite, and the raw `pg` floor (bench/w1-pg-floor.ts). `<before tree>` is a copy of
 * another commit's src/, bench/ and test/ (with node_modules linked in).
 */
const before = process.argv[2];
if (!before) throw new Error('Name the tree to compare with: npx tsx bench/w1-pg-before-after.ts <dir>');
const warmup = Number(process.argv[3] ?? 30);
const cycles = Number(process.argv[4] ?? 300);
const blocks = 10;
const roots = { before: resolve(before), after: resolve(import.meta.dirname, '..') };
const dir = mkdtempSync(join(tmpdir(), 'heed-w1-ab-'));
const databases: TestDatabase[] = [];
interface Side {
  name: string;
  cycle: () => Promise<void>;
  done: number;
  elapsed: number;
  close: () => Promise<void>;
}
const sides: Side[] = [];
for (const [label, root] of Object.entries(roots)) {
  const heedModule = (await import(join(root, 'src/index.ts'))) as typeof import('../src/index.js');
  const agents = (await import(join(root, 'bench/refund-agent.ts'))) as typeof import('./refund-agent.js');
  const halves = (await import(join(root, 'bench/w1-approval.ts'))) as typeof import('./w1-approval.js');
  const database = await freshDatabase('heed_w1_ab');
  databases.push(database);
  const stores = {
    pg: heedModule.postgresStore({ connectionString: database.url }),
    sqlite: heedModule.sqliteStore({ path: join(dir, `${label}.db`) }),
  };
  for (const [kind, store] of Object.entries(stores)) {
    const { agent, model } = agents.benchRefundAgent();
    const heed = heedModule.createHeed({ agents: [agent], store, sweepIntervalMs: 0 });
    sides.push({
      name: `${kind} ${label}`,
      done: 0,
      elapsed: 0,
      close: () => heed.close(),
      cycle: async () => {
        await halves.resumeHalf(heed, await halves.pauseHalf(heed));
        agents.forgetCalls(model);
      },
    });
  }
}
const floorDatabase = await freshDatabase('heed_w1_ab_floor');
databases.push(floorDatabase);
const floor = await pgFloor(floorDatabase.url);
sides.push({ name: 'pg floor', done: 0, elapsed: 0, close: () => floor.close(), cycle: () => floor.cycle() });
try {
  for (let i = 0; i < warmup; i++) for (const side of sides) await side.cycle();
  for (let block = 1; block <= blocks; block++) {
    const end = Math.round((cycles * block) / blocks);
    for (const side of sides) {
      const started = performance.now();
      for (let i = side.done; i < end; i++) await side.cycle();
      side.done = end;
      side.elapsed += performance.now() - started;
    }
  }
  const rate = (name: string) => {
    const side = sides.find((entry) => entry.name === name);
    return side ? (cycles * 1000) / side.elapsed : NaN;
  };
  for (const side of sides) console.log(`${side.name}: ${rate(side.name).toFixed(1)} cycles/s`);
  const ratio = (a: string, b: string) => `${(rate(a) / rate(b)).toFixed(2)}×`;
  console.log(
    `Heed/floor before ${ratio('pg before', 'pg floor')}, after ${ratio('pg after', 'pg floor')}; ` +
      `PostgreSQL after/before ${ratio('pg after', 'pg before')}; SQLite after/before ${ratio('sqlite after', 'sqlite before')}`,
  );
} finally {
  for (const side of sides) await side.close();
  for (const database of databases) await database.drop();
  rmSync(dir, { recursive: true, force: true });
}
