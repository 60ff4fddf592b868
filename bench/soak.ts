import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { serve } from '../src/cli/serve.js';
import type { AgentConfig } from '../src/config.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { scriptedModel, type ScriptedModel } from '../src/testing/scripted-model.js';
import { tool } from '../src/tool.js';
import { conversationProblems } from '../test/invariants.js';
import { fmtBytes, sortedCopy } from './report.js';
import { engineOf } from '../src/heed.js';
import { sizeQuestions } from '../test/fixtures/size-questions.js';

/**
 * The soak (`npm run soak`, not part of CI): many conversations pause and resume at once over loopback
 * HTTP, for minutes, against `serve()` on a SQLite file, while the process's memory is sampled. It
 * stops by itself and fails (exit 1) on any unexpected answer, a stuck turn, a conversation whose
 * records do not match its events, or heap growth once warmed up.
 *
 * Flows, picked at random per conversation: approve a refund (most), answer questions, cancel an open
 * pause, answer a client tool, answer two approvals of one pause at once, and leave an approval
 * unanswered so that it lapses and the sweep carries the turn on.
 *
 * SOAK_SECONDS (default 180), SOAK_CONCURRENCY (default 32), SOAK_SAMPLE_MS (default 2000).
 */

export interface SoakOptions {
  seconds: number;
  concurrency: number;
  sampleMs: number;
  log?: (line: string) => void;
}

export interface MemorySample {
  second: number;
  rss: number;
  heapUsed: number;
  conversations: number;
}

export interface SoakReport {
  seconds: number;
  conversations: number;
  requests: number;
  conversationsPerSecond: number;
  requestsPerSecond: number;
  /** Request latency, ms. */
  p50: number;
  p99: number;
  flows: Record<string, number>;
  samples: MemorySample[];
  /** Heap growth per minute after the warm-up (least squares over the samples), bytes. */
  heapSlopePerMinute: number;
  /** Heap after the warm-up vs at the end (medians of the first and last quarter of those samples), bytes. */
  heapGrowth: number;
  rssGrowth: number;
  /** Turns still running, or due pauses not carried on, once the load stopped and the sweep ran. */
  stuck: number;
  /** Conversations whose records and events disagree (checked on every one). */
  inconsistent: number;
  errors: string[];
}

type Flow = 'approve' | 'questions' | 'cancel' | 'client-tool' | 'two-at-once' | 'lapse';
const FLOWS: Array<[Flow, number]> = [
  ['approve', 50],
  ['questions', 15],
  ['cancel', 10],
  ['client-tool', 10],
  ['two-at-once', 10],
  ['lapse', 5],
];

function agents(): { list: AgentConfig[]; models: ScriptedModel[] } {
  const respond = ({ messages }: { messages: Array<{ role: string; content: unknown }> }) => {
    const last = messages.at(-1)!;
    if (last.role === 'tool') return { text: 'Done.' };
    const text = Array.isArray(last.content)
      ? last.content.map((part: { text?: string }) => part.text ?? '').join('')
      : '';
    if (text === 'two')
      return {
        toolCalls: [
          { toolName: 'issue_refund', input: { orderId: 1, amount: 1 } },
          { toolName: 'issue_refund', input: { orderId: 2, amount: 2 } },
        ],
      };
    if (text === 'questions') {
      return {
        toolCalls: [
          {
            toolName: 'ask',
            input: {
              questions: sizeQuestions,
            },
          },
        ],
      };
    }
    if (text === 'page') return { toolCalls: [{ toolName: 'get_selection', input: {} }] };
    return { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] };
  };
  const tools = {
    issue_refund: tool({
      inputSchema: z.object({ orderId: z.number(), amount: z.number() }),
      needsApproval: true,
      execute: async (input) => ({ refunded: input.amount }),
    }),
    get_selection: tool({
      inputSchema: z.object({}),
      outputSchema: z.object({ text: z.string() }),
      client: { kind: 'page' },
    }),
  };
  const models = [scriptedModel(respond), scriptedModel(respond)];
  return {
    models,
    list: [
      { name: 'support', model: models[0], ask: true, tools },
      // Its approvals lapse after 0.6 s and are answered as refusals by the sweep.
      { name: 'lapsing', model: models[1], tools, hitl: { timeoutMinutes: 0.01, onTimeout: 'deny' } },
    ],
  };
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? ((line: string) => console.log(line));
  const dir = mkdtempSync(join(tmpdir(), 'heed-soak-'));
  const { list, models } = agents();
  const store = sqliteStore({ path: join(dir, 'soak.db') });
  // Conversations start far faster than one caller may over HTTP by default.
  const server = await serve({
    config: { agents: list, store, sweepIntervalMs: 500, limits: { conversationsPerMinute: 0 } },
    port: 0,
    host: '127.0.0.1',
    log: () => undefined,
  });
  const pool = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  // Fixed-size bookkeeping, allocated up front, so the soak's own records do not show as growth.
  const latencies = new Latencies();
  const errors: string[] = [];
  const flows: Record<string, number> = {};
  let conversations = 0;
  let requests = 0;

  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const started = performance.now();
    const response = await send(server.url, pool, method, path, body === undefined ? undefined : JSON.stringify(body));
    latencies.add(performance.now() - started);
    requests++;
    return { status: response.status, body: response.text ? JSON.parse(response.text) : undefined };
  };
  const expectStatus = (what: string, got: { status: number; body: any }, status: number, turn?: string) => {
    if (got.status !== status || (turn && got.body?.status !== turn)) {
      errors.push(`${what}: ${got.status} ${JSON.stringify(got.body).slice(0, 300)}`);
      throw new Error(errors.at(-1));
    }
    return got.body;
  };

  const conversationFlow = async (flow: Flow) => {
    const agent = flow === 'lapse' ? 'lapsing' : 'support';
    const { id } = expectStatus('create', await api('POST', '/api/conversations', { agent }), 201);
    conversations++;
    const text = {
      approve: 'refund',
      questions: 'questions',
      cancel: 'refund',
      'client-tool': 'page',
      'two-at-once': 'two',
      lapse: 'refund',
    }[flow];
    const paused = expectStatus(
      'send',
      await api('POST', `/api/conversations/${id}/messages`, { content: text }),
      200,
      'requires_action',
    );
    const [first, second] = paused.pendingActions as Array<{ id: string }>;
    const answer = (actionId: string, resolution: unknown) =>
      api('POST', `/api/conversations/${id}/actions/${actionId}`, { resolution });
    switch (flow) {
      case 'approve':
        expectStatus('approve', await answer(first.id, { type: 'approval', decision: 'allow' }), 200, 'completed');
        break;
      case 'questions':
        expectStatus(
          'answer',
          await answer(first.id, { type: 'question', answers: { size: 'Large', qty: '3' } }),
          200,
          'completed',
        );
        break;
      case 'cancel':
        expectStatus('cancel', await api('POST', `/api/conversations/${id}/cancel`), 200);
        break;
      case 'client-tool':
        expectStatus(
          'page',
          await answer(first.id, { type: 'client_tool', output: { text: 'selected' } }),
          200,
          'completed',
        );
        break;
      case 'two-at-once': {
        const both = await Promise.all([
          answer(first.id, { type: 'approval', decision: 'allow' }),
          answer(second.id, { type: 'approval', decision: 'deny' }),
        ]);
        const statuses = both.map((entry) => entry.body?.status).sort();
        if (both.some((entry) => entry.status !== 200) || statuses.join() !== 'completed,requires_action') {
          errors.push(
            `two answers: ${JSON.stringify(both.map((entry) => [entry.status, entry.body?.status ?? entry.body]))}`,
          );
        }
        break;
      }
      case 'lapse':
        // Left alone: the sweep lapses it (a refusal) and carries the turn on.
        break;
    }
    flows[flow] = (flows[flow] ?? 0) + 1;
  };

  const pick = (): Flow => {
    let roll = Math.random() * 100;
    for (const [flow, weight] of FLOWS) if ((roll -= weight) < 0) return flow;
    return 'approve';
  };

  const gc = (globalThis as { gc?: () => void }).gc;
  const samples: MemorySample[] = [];
  const started = performance.now();
  const sample = () => {
    for (const model of models) (model.calls as unknown[]).length = 0;
    gc?.();
    const memory = process.memoryUsage();
    const entry = {
      second: Math.round((performance.now() - started) / 1000),
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      conversations,
    };
    samples.push(entry);
    log(
      `  t=${String(entry.second).padStart(4)} s  conversations ${String(entry.conversations).padStart(7)}  rss ${fmtBytes(entry.rss).padStart(9)}  heap ${fmtBytes(entry.heapUsed).padStart(9)}`,
    );
  };
  const sampler = setInterval(sample, options.sampleMs);
  const deadline = started + options.seconds * 1000;
  log(
    `soak: ${options.seconds} s, ${options.concurrency} clients over loopback, SQLite file, gc ${gc ? 'forced before each sample' : 'not exposed (run with --expose-gc)'}`,
  );
  sample();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) await conversationFlow(pick()).catch(() => undefined);
    }),
  );
  clearInterval(sampler);
  const elapsed = (performance.now() - started) / 1000;
  sample();

  // Let the lapsing ones fall due, then sweep: nothing may be left running or waiting past its deadline.
  await new Promise((resolve) => setTimeout(resolve, 1200));
  await server.heed.expireDue();
  await Promise.allSettled([...engineOf(server.heed).inFlight]);
  let stuck = 0;
  let inconsistent = 0;
  const now = new Date().toISOString();
  let checked = 0;
  for (let before: { updatedAt: string; id: string } | undefined; ;) {
    const page = await store.listConversations({ limit: 500, before });
    for (const conversation of page) {
      checked++;
      if (conversation.status === 'running' || (conversation.actionDueAt !== null && conversation.actionDueAt <= now))
        stuck++;
      const problems = await conversationProblems(store, conversation.id);
      if (problems.length > 0) {
        inconsistent++;
        if (inconsistent <= 5) errors.push(...problems);
      }
    }
    if (page.length < 500) break;
    before = { updatedAt: page.at(-1)!.updatedAt, id: page.at(-1)!.id };
  }
  if (checked !== conversations) errors.push(`${conversations} conversations were created but ${checked} are stored`);
  pool.destroy();
  await server.close();
  rmSync(dir, { recursive: true, force: true });

  const steady = samples.filter((entry) => entry.second >= options.seconds * 0.25);
  const quarter = Math.max(1, Math.floor(steady.length / 4));
  const median = (values: number[]) => sortedCopy(values)[Math.floor(values.length / 2)];
  return {
    seconds: elapsed,
    conversations,
    requests,
    conversationsPerSecond: conversations / elapsed,
    requestsPerSecond: requests / elapsed,
    p50: latencies.percentile(50),
    p99: latencies.percentile(99),
    flows,
    samples,
    heapSlopePerMinute: slope(steady.map((entry) => [entry.second / 60, entry.heapUsed])),
    heapGrowth:
      steady.length >= 2
        ? median(steady.slice(-quarter).map((entry) => entry.heapUsed)) -
          median(steady.slice(0, quarter).map((entry) => entry.heapUsed))
        : 0,
    rssGrowth:
      steady.length >= 2
        ? median(steady.slice(-quarter).map((entry) => entry.rss)) -
          median(steady.slice(0, quarter).map((entry) => entry.rss))
        : 0,
    stuck,
    inconsistent,
    errors,
  };
}

/** Request times in 0.1 ms buckets up to 60 s. */
class Latencies {
  private readonly buckets = new Uint32Array(600_000);
  private count = 0;
  add(ms: number): void {
    this.buckets[Math.min(this.buckets.length - 1, Math.floor(ms * 10))]++;
    this.count++;
  }
  percentile(p: number): number {
    let rank = Math.ceil((p / 100) * this.count);
    for (let index = 0; index < this.buckets.length; index++) if ((rank -= this.buckets[index]) <= 0) return index / 10;
    return NaN;
  }
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

function send(
  base: string,
  agent: Agent,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, agent, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What the soak must show: the targets the command line checks. */
export function soakVerdict(report: SoakReport, options: { maxHeapGrowth: number }): string[] {
  const failures: string[] = [];
  if (report.errors.length > 0)
    failures.push(`${report.errors.length} unexpected answers or inconsistencies, first: ${report.errors[0]}`);
  if (report.stuck > 0) failures.push(`${report.stuck} stuck turns`);
  if (report.inconsistent > 0)
    failures.push(`${report.inconsistent} conversations whose records do not match their events`);
  if (report.heapGrowth > options.maxHeapGrowth)
    failures.push(
      `heap grew ${fmtBytes(report.heapGrowth)} after the warm-up (limit ${fmtBytes(options.maxHeapGrowth)})`,
    );
  return failures;
}

const signed = (bytes: number) => `${bytes < 0 ? '-' : '+'}${fmtBytes(Math.abs(bytes))}`;

export function describeSoak(report: SoakReport): string {
  const flows = Object.entries(report.flows)
    .map(([flow, count]) => `${flow} ${count}`)
    .join(', ');
  return [
    `ran ${report.seconds.toFixed(0)} s: ${report.conversations} conversations (${report.conversationsPerSecond.toFixed(1)}/s), ${report.requests} requests (${report.requestsPerSecond.toFixed(0)}/s), p50 ${report.p50.toFixed(1)} ms, p99 ${report.p99.toFixed(1)} ms`,
    `flows: ${flows}`,
    `memory after the warm-up: heap ${signed(report.heapGrowth)} (slope ${signed(report.heapSlopePerMinute)}/min), rss ${signed(report.rssGrowth)}`,
    `stuck turns ${report.stuck}, inconsistent conversations ${report.inconsistent}, unexpected answers ${report.errors.length}`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const seconds = Number(process.env.SOAK_SECONDS ?? 180);
  const report = await runSoak({
    seconds,
    concurrency: Number(process.env.SOAK_CONCURRENCY ?? 32),
    sampleMs: Number(process.env.SOAK_SAMPLE_MS ?? 2000),
  });
  console.log(describeSoak(report));
  const failures = soakVerdict(report, { maxHeapGrowth: 8 * 1024 * 1024 });
  for (const failure of failures) console.log(`FAIL: ${failure}`);
  console.log(failures.length === 0 ? 'soak: PASS' : 'soak: FAIL');
  process.exit(failures.length === 0 ? 0 : 1);
}
