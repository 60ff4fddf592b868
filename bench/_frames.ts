import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHeed, sqliteStore } from '../src/index.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import { pauseHalf, resumeHalf } from './w1-approval.js';
const dir = mkdtempSync(join(tmpdir(), 'w1f-'));
const { agent, model } = benchRefundAgent();
const path = join(dir, 'h.db');
const store = sqliteStore({ path, checkpoint: 'inline' });
const frames: Record<string, number> = {};
let idx = 0;
const commit = store.commit;
store.commit = async (change) => { const before = statSync(path + '-wal').size; const r = await commit(change); const k = 'commit#' + (idx++ % 6) + ' ' + (change.events ?? []).map((e) => e.type).join(','); frames[k] = (frames[k] ?? 0) + (statSync(path + '-wal').size - before) / 2072; return r; };
const heed = createHeed({ agents: [agent], store, sweepIntervalMs: 0 });
for (let i = 0; i < 50; i++) { await resumeHalf(heed, await pauseHalf(heed)); forgetCalls(model); }
for (const k in frames) frames[k] = 0; idx = 0;
const n = 400;
for (let i = 0; i < n; i++) { await resumeHalf(heed, await pauseHalf(heed)); forgetCalls(model); }
for (const k in frames) console.log((frames[k] / n).toFixed(2), k);
await heed.close();
