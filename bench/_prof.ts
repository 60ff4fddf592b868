import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHeed, sqliteStore } from '../src/index.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import { pauseHalf, resumeHalf } from './w1-approval.js';
const dir = mkdtempSync(join(tmpdir(), 'w1p-'));
const { agent, model } = benchRefundAgent();
const heed = createHeed({ agents: [agent], store: sqliteStore({ path: join(dir, 'h.db') }), sweepIntervalMs: 0 });
const n = Number(process.env.N ?? 3000);
for (let i = 0; i < 300; i++) { await resumeHalf(heed, await pauseHalf(heed)); forgetCalls(model); }
const t = performance.now();
for (let i = 0; i < n; i++) { await resumeHalf(heed, await pauseHalf(heed)); forgetCalls(model); }
const el = performance.now() - t;
console.log(`${(n / el * 1000).toFixed(0)} cycles/s, ${(el / n).toFixed(3)} ms/cycle`);
await heed.close();
