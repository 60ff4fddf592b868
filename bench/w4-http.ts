import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { serve, type RunningServer } from '../src/cli/serve.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { httpCall } from './http-call.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import { benchRow, type BenchRow, type WorkloadResult } from './report.js';

export interface W4Options {
  /** Requests in flight at once. Default 16. */
  concurrency?: number;
  /** Measured seconds per figure, split into alternating blocks. Default 3. */
  seconds?: number;
  /** Paused conversations made ready before measuring; the answer phase stops early if they run out. */
  pool?: number;
}

export interface W4Result extends WorkloadResult {
  healthPerSec: number;
  answersPerSec: number;
  /** answers / health; DESIGN §11 asks for at least 1/3. */
  ratio: number;
  /** The same answers through the library in the same run, for scale. */
  libraryPerSec: number;
}

const BLOCKS = 4;

/**
 * W4 HTTP throughput (DESIGN §11): answers per second over real loopback HTTP, each to a distinct
 * action, with a zero-latency scripted model (an answer = record it, run the tool, call the model,
 * store the reply), against the same server's bare `GET /health` rate. The two run in alternating
 * blocks in one process, on a SQLite file, so noise on the machine slows both alike.
 */
export async function runW4(options: W4Options = {}): Promise<W4Result> {
  const concurrency = options.concurrency ?? 16;
  const seconds = options.seconds ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'heed-bench-w4-'));
  const { agent, model, refunds } = benchRefundAgent();
  const server = await serve({
    config: {
      agents: [agent],
      store: sqliteStore({ path: join(dir, 'heed.db') }),
      sweepIntervalMs: 0,
      limits: { conversationsPerMinute: 0 },
    },
    port: 0,
    log: () => undefined,
  });
  const agentPool = new Agent({ keepAlive: true, maxSockets: concurrency });
  const client = (method: string, path: string, body?: string) => httpCall(server.url, agentPool, method, path, body);
  try {
    const pool = await parkConversations(server, options.pool ?? 12_000);
    forgetCalls(model);
    let next = 0;
    const answerNext = async () => {
      const target = pool[next++];
      if (!target) return false;
      const response = await client('POST', `/api/conversations/${target.id}/actions/${target.actionId}`, ANSWER);
      if (response.status !== 200 || !response.body.includes('"status":"completed"')) {
        throw new Error(`An answer failed with ${response.status}: ${response.body.slice(0, 300)}`);
      }
      return true;
    };
    // The same answer through the library, to show what HTTP adds on top of the engine.
    const answerInProcess = async () => {
      const target = pool[next++];
      if (!target) return false;
      const result = await server.heed
        .conversation(target.id)
        .resolve(target.actionId, { type: 'approval', decision: 'allow' });
      if (result.status !== 'completed') throw new Error(`An answer ended ${result.status}.`);
      return true;
    };
    const health = async () => {
      const response = await client('GET', '/health');
      if (response.status !== 200) throw new Error(`/health answered ${response.status}`);
      return true;
    };

    // Warm-up: JIT, sockets, SQLite page cache.
    await drive(health, concurrency, 0.3);
    await drive(answerNext, concurrency, 0.3);
    const refundsBefore = refunds.count;
    const totals = { health: { count: 0, ms: 0 }, answers: { count: 0, ms: 0 }, library: { count: 0, ms: 0 } };
    for (let block = 0; block < BLOCKS; block++) {
      const h = await drive(health, concurrency, seconds / BLOCKS);
      totals.health.count += h.count;
      totals.health.ms += h.ms;
      const a = await drive(answerNext, concurrency, seconds / BLOCKS);
      totals.answers.count += a.count;
      totals.answers.ms += a.ms;
      const l = await drive(answerInProcess, concurrency, seconds / BLOCKS / 2);
      totals.library.count += l.count;
      totals.library.ms += l.ms;
      forgetCalls(model);
    }
    if (refunds.count - refundsBefore !== totals.answers.count + totals.library.count) {
      throw new Error(
        `${totals.answers.count + totals.library.count} answers ran the tool ${refunds.count - refundsBefore} times.`,
      );
    }
    const healthPerSec = (totals.health.count / totals.health.ms) * 1000;
    const answersPerSec = (totals.answers.count / totals.answers.ms) * 1000;
    const ratio = answersPerSec / healthPerSec;
    const libraryPerSec = (totals.library.count / totals.library.ms) * 1000;
    const rate = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;
    const rows: BenchRow[] = [
      {
        workload: 'W4',
        figure: `answers over HTTP (concurrency ${concurrency})`,
        value: rate(answersPerSec),
        baseline: `${rate(healthPerSec)} GET /health`,
        ratio: `${ratio.toFixed(2)}×`,
        target: '≥ 0.33×',
        verdict: ratio >= 1 / 3 ? 'PASS' : 'MISS',
      },
      benchRow('W4', 'the same answers through the library (no HTTP)', rate(libraryPerSec)),
    ];
    const details = [
      `W4: ${totals.answers.count} answers (each to its own paused conversation) and ${totals.health.count} GET /health, ` +
        `${BLOCKS} alternating blocks of ${(seconds / BLOCKS).toFixed(2)} s each, ${concurrency} requests in flight, ` +
        'node:http keep-alive client in the same process as the server, SQLite file (WAL, synchronous=NORMAL), ' +
        'zero-latency scripted model. Every answer returned 200 with the completed turn; the tool ran once per answer. ' +
        `In the same blocks, ${totals.library.count} answers through the library directly ran at ${rate(libraryPerSec)}: ` +
        'the engine and its SQLite writes, not HTTP, bound the answer rate.',
    ];
    return { healthPerSec, answersPerSec, ratio, libraryPerSec, rows, details };
  } finally {
    agentPool.destroy();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ANSWER = JSON.stringify({ resolution: { type: 'approval', decision: 'allow' } });

/** Conversations paused on an approval, made through the library (setup is not what W4 measures). */
async function parkConversations(
  server: RunningServer,
  count: number,
): Promise<Array<{ id: string; actionId: string }>> {
  const pool: Array<{ id: string; actionId: string }> = [];
  const batch = 64;
  for (let start = 0; start < count; start += batch) {
    const made = await Promise.all(
      Array.from({ length: Math.min(batch, count - start) }, async () => {
        const conversation = await server.heed.createConversation({ agent: 'support' });
        const result = await server.heed.conversation(conversation.id).send('refund order 42');
        return { id: conversation.id, actionId: result.pendingActions![0].id };
      }),
    );
    pool.push(...made);
  }
  return pool;
}

/** Runs `work` with `concurrency` loops for `seconds` (or until it returns false); counts completions. */
async function drive(
  work: () => Promise<boolean>,
  concurrency: number,
  seconds: number,
): Promise<{ count: number; ms: number }> {
  const start = performance.now();
  const end = start + seconds * 1000;
  let count = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        if (!(await work())) return;
        count++;
      }
    }),
  );
  return { count, ms: performance.now() - start };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runW4();
  console.log(
    `W4 HTTP throughput: ${Math.round(result.answersPerSec)} answers/s, ${Math.round(result.healthPerSec)} GET /health/s, ` +
      `ratio ${result.ratio.toFixed(2)} (target ≥ 0.33); library answers ${Math.round(result.libraryPerSec)}/s`,
  );
  console.log(result.details.join('\n'));
}
