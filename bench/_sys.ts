import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHeed, sqliteStore } from '../src/index.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import { pauseHalf, resumeHalf } from './w1-approval.js';
const dir = mkdtempSync(join(tmpdir(), 'w1s-'));
const { agent, model } = benchRefundAgent();
const heed = createHeed({ agents: [agent], store: sqliteStore({ path: join(dir, 'h.db'), checkpoint: 'inline' }), sweepIntervalMs: 0 });
const n = Number(process.env.N ?? 1000);
for (let i = 0; i < n; i++) { await resumeHalf(heed, await pauseHalf(heed)); forgetCalls(model); }
await heed.close();
