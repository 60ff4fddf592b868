import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHeed, sqliteStore } from '../src/index.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import { pauseHalf, resumeHalf } from './w1-approval.js';
const dir = mkdtempSync(join(tmpdir(), 'w1c-'));
const { agent, model } = benchRefundAgent();
const store = sqliteStore({ path: join(dir, 'h.db'), ...(process.env.INLINE ? { checkpoint: 'inline' } : {}) });
const t: Record<string, number> = {};
let idx = 0;
for (const k of Object.keys(store) as (keyof typeof store)[]) {
  const f = store[k] as any;
  (store as any)[k] = (...a: any[]) => { const key = k === 'commit' ? 'commit#' + (idx++ % 6) : k; const s = performance.now(); const r = f(...a); t[key] = (t[key] ?? 0) + performance.now() - s; return r; };
}
const heed = createHeed({ agents: [agent], store, sweepIntervalMs: 0 });
for (let i = 0; i < 300; i++) { await resumeHalf(heed, await pauseHalf(heed)); forgetCalls(model); }
for (const k in t) t[k] = 0; idx = 0;
const n = 3000; const s = performance.now();
for (let i = 0; i < n; i++) { await resumeHalf(heed, await pauseHalf(heed)); forgetCalls(model); }
const el = performance.now() - s;
let sum = 0; for (const k in t) { console.log(k.padEnd(22), (t[k] / n * 1000).toFixed(1), 'µs'); sum += t[k]; }
console.log('store total', (sum / n * 1000).toFixed(0), 'µs of', (el / n * 1000).toFixed(0), 'µs per cycle');
await heed.close();
