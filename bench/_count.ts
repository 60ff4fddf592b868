import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHeed, sqliteStore } from '../src/index.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import { pauseHalf, resumeHalf } from './w1-approval.js';
const dir = mkdtempSync(join(tmpdir(), 'w1c-'));
const { agent, model } = benchRefundAgent();
const store = sqliteStore({ path: join(dir, 'h.db') });
const counts: Record<string, number> = {};
const log: string[] = [];
for (const k of Object.keys(store) as (keyof typeof store)[]) {
  const f = store[k] as any;
  (store as any)[k] = (...a: any[]) => { counts[k] = (counts[k] ?? 0) + 1; if (k === 'commit') log.push(`commit ev=${(a[0].events??[]).map((e:any)=>e.type).join(',')} msgs=${(a[0].messages??[]).length} acts=${(a[0].actions??[]).length} settle=${(a[0].settle??[]).length} set=${Object.keys(a[0].set??{}).join('/')}`); else log.push(k); return f(...a); };
}
const heed = createHeed({ agents: [agent], store, sweepIntervalMs: 0 });
await resumeHalf(heed, await pauseHalf(heed)); forgetCalls(model);
for (const k in counts) counts[k] = 0; log.length = 0;
await resumeHalf(heed, await pauseHalf(heed));
console.log(counts); console.log(log.join('\n'));
await heed.close();
