import { mkdtempSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../src/cli/serve.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { httpCall } from './http-call.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
const dir = mkdtempSync(join(tmpdir(), 'w4p-'));
const { agent, model } = benchRefundAgent();
const server = await serve({ config: { agents: [agent], store: sqliteStore({ path: join(dir, 'heed.db') }), sweepIntervalMs: 0, limits: { conversationsPerMinute: 0 } }, port: 0, log: () => undefined });
const agentPool = new Agent({ keepAlive: true, maxSockets: 16 });
const pool: { id: string; actionId: string }[] = [];
for (let i = 0; i < 3000; i++) { const c = await server.heed.createConversation({ agent: 'support' }); const r = await server.heed.conversation(c.id).send('refund order 42'); pool.push({ id: c.id, actionId: r.pendingActions![0].id }); forgetCalls(model); }
const ANSWER = JSON.stringify({ resolution: { type: 'approval', decision: 'allow' } });
let next = 0;
async function run(n: number) { await Promise.all(Array.from({ length: 16 }, async () => { while (next < n) { const t = pool[next++]; const r = await httpCall(server.url, agentPool, 'POST', `/api/conversations/${t.id}/actions/${t.actionId}`, ANSWER); if (r.status !== 200) throw new Error(r.body); } })); forgetCalls(model); }
await run(500);
const session = new Session(); session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.start');
const s = performance.now(); await run(3000); const el = performance.now() - s;
const { profile } = await session.post('Profiler.stop');
writeFileSync('/tmp/w4.cpuprofile', JSON.stringify(profile));
console.log(`${(2500 / el * 1000).toFixed(0)} answers/s`);
await server.close();
