import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHeed, sqliteStore } from '../src/index.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import { pauseHalf, resumeHalf } from './w1-approval.js';
const dir = mkdtempSync(join(tmpdir(), 'w1ab-'));
const { agent, model } = benchRefundAgent();
const heed = createHeed({ agents: [agent], store: sqliteStore({ path: join(dir, 'h.db'), ...(process.env.INLINE ? { checkpoint: 'inline' as const } : {}) }), sweepIntervalMs: 0 });
const n = Number(process.env.N ?? 3000);
for (let i = 0; i < 300; i++) { await resumeHalf(heed, await pauseHalf(heed)); forgetCalls(model); }
const times = new Float64Array(n);
const t = performance.now();
for (let i = 0; i < n; i++) { const s = performance.now(); await resumeHalf(heed, await pauseHalf(heed)); forgetCalls(model); times[i] = performance.now() - s; }
const el = performance.now() - t;
times.sort();
console.log(`${process.env.LABEL ?? ''} ${(n / el * 1000).toFixed(0)} cycles/s, mean ${(el / n * 1000).toFixed(0)}µs p50 ${(times[n >> 1] * 1000).toFixed(0)}µs p99 ${(times[Math.floor(n * 0.99)] * 1000).toFixed(0)}µs`);
await heed.close();
