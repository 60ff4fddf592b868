import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import os, { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { freshDatabase, pgServer, pgSkipReason } from '../test/pg.js';
import { startServe } from '../test/serve-process.js';
import { httpCall } from './http-call.js';
import { fmtMs, percentile, progress, sortedCopy, type BenchRow, type WorkloadResult } from './report.js';

export interface W3Options {
  /** Answers fired at one action at once. Default 50. */
  answers?: number;
  /** Measured rounds (one fresh paused conversation each) per topology. Default 200. */
  rounds?: number;
  warmup?: number;
}

interface Instance {
  url: string;
  child: ChildProcess;
  agent: Agent;
}

/**
 * W3 contention (DESIGN §11): `answers` concurrent HTTP answers to one action, against one `heed serve`
 * process and against two on one PostgreSQL database (answers alternate between them). Each round
 * checks that exactly one answer continued the turn, every other got 409 `action_not_pending` carrying
 * the stored answer, the tool ran once, and nothing was lost; the figure is the winning answer's
 * latency (it includes the continued turn). This process only sends requests and checks: the servers
 * are real processes, as instances behind a load balancer are.
 */
export async function runW3(options: W3Options = {}): Promise<WorkloadResult> {
  if (!pgServer) return { rows: [], details: [`W3 skipped: ${pgSkipReason}.`] };
  const answers = options.answers ?? 50;
  const rounds = options.rounds ?? 200;
  const warmup = options.warmup ?? 10;
  const database = await freshDatabase('heed_bench');
  const dir = mkdtempSync(join(tmpdir(), 'heed-bench-w3-'));
  const toolLog = join(dir, 'tool.log');
  const instances: Instance[] = [];
  try {
    for (let i = 0; i < 2; i++) instances.push(await startServer(database.url, toolLog, answers));
    const rows: BenchRow[] = [];
    const details: string[] = [
      `W3: ${answers} answers fired at once (one event-loop tick) at one pending approval over loopback HTTP (node:http keep-alive, sockets opened beforehand), ` +
        `${rounds} measured rounds after ${warmup} warm-up rounds per topology, each on a fresh conversation; \`heed serve --database-url\` processes ` +
        `(bench/w3-server.config.ts: the W1 refund agent, zero-latency scripted model, pool of 10 connections each) on a fresh PostgreSQL database with the server's default settings. ` +
        'Each answer carries its own comment, so the stored answer names the winner.',
      "Checked every round: exactly one 200 with the completed turn, every other answer 409 action_not_pending whose details carry the stored resolution (the winner's), " +
        'the tool ran once (its log, written by whichever process ran it), one action.resolved event and one turn.started (trigger answer) in the log. ' +
        "The winning answer's latency includes running the continued turn.",
    ];
    for (const topology of [1, 2]) {
      const serving = instances.slice(0, topology);
      progress(
        `W3 contention: ${answers} answers × ${warmup + rounds} rounds against ${topology} heed serve process${topology > 1 ? 'es' : ''}`,
      );
      await warmSockets(serving, answers);
      const winners: number[] = [];
      const losers: number[] = [];
      const lasts: number[] = [];
      for (let round = -warmup; round < rounds; round++) {
        const outcome = await oneRound(serving, answers, toolLog);
        if (round < 0) continue;
        winners.push(outcome.winnerMs);
        losers.push(...outcome.loserMs);
        lasts.push(outcome.lastMs);
      }
      const sortedWinners = sortedCopy(winners);
      const sortedLosers = sortedCopy(losers);
      const p99 = percentile(sortedWinners, 99);
      const label = topology === 1 ? 'one instance' : 'two instances';
      rows.push(
        {
          workload: 'W3',
          figure: `winning answer p50 / p99, ${label}`,
          value: `${fmtMs(percentile(sortedWinners, 50))} / ${fmtMs(p99)}`,
          baseline: '',
          ratio: '',
          target: '< 50 ms (p99)',
          verdict: p99 < 50 ? 'PASS' : 'MISS',
        },
        {
          workload: 'W3',
          figure: `${answers} answers × ${rounds} rounds, ${label}`,
          value: `1 continuation and ${answers - 1} × 409 in every round`,
          baseline: `409s p50 / p99 ${fmtMs(percentile(sortedLosers, 50))} / ${fmtMs(percentile(sortedLosers, 99))}`,
          ratio: '',
          target: 'exactly one, no answer lost',
          verdict: 'PASS',
        },
      );
      details.push(
        `${label} (load average ${loadavg()[0].toFixed(1)} on ${availableCores()} cores when it ended): winning answer p50 ${fmtMs(percentile(sortedWinners, 50))}, p99 ${fmtMs(p99)}, max ${fmtMs(sortedWinners[sortedWinners.length - 1])}; ` +
          `the 409s p50 ${fmtMs(percentile(sortedLosers, 50))}, p99 ${fmtMs(percentile(sortedLosers, 99))}; a round's last answer came back after p50 ${fmtMs(percentile(sortedCopy(lasts), 50))}.`,
      );
    }
    return { rows, details };
  } finally {
    for (const instance of instances) {
      instance.agent.destroy();
      instance.child.kill('SIGTERM');
    }
    await Promise.all(
      instances.map(
        (instance) =>
          new Promise((resolve) =>
            instance.child.exitCode !== null ? resolve(null) : instance.child.once('exit', resolve),
          ),
      ),
    );
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function startServer(databaseUrl: string, toolLog: string, sockets: number): Promise<Instance> {
  const served = await startServe(['--database-url', databaseUrl, '--config', 'bench/w3-server.config.ts'], {
    HEED_BENCH_TOOL_LOG: toolLog,
  });
  return { url: served.url, child: served.child, agent: new Agent({ keepAlive: true, maxSockets: sockets }) };
}

/** Parks a conversation, fires the answers at once, checks every outcome. Throws if anything is off. */
async function oneRound(
  serving: Instance[],
  answers: number,
  toolLog: string,
): Promise<{ winnerMs: number; loserMs: number[]; lastMs: number }> {
  const [first] = serving;
  const conversation = JSON.parse(
    (await call(first, 'POST', '/api/conversations', JSON.stringify({ agent: 'support' }))).body,
  ) as { id: string };
  const id = conversation.id;
  const paused = JSON.parse(
    (await call(first, 'POST', `/api/conversations/${id}/messages`, JSON.stringify({ content: 'refund order 42' })))
      .body,
  );
  const actionId = paused.pendingActions[0].id as string;
  const runsBefore = toolRuns(toolLog);
  const started = performance.now();
  const responses = await Promise.all(
    Array.from({ length: answers }, async (_, index) => {
      const instance = serving[index % serving.length];
      const body = JSON.stringify({ resolution: { type: 'approval', decision: 'allow', comment: `answer ${index}` } });
      const response = await call(instance, 'POST', `/api/conversations/${id}/actions/${actionId}`, body);
      return {
        index,
        ms: performance.now() - started,
        status: response.status,
        body: JSON.parse(response.body) as any,
      };
    }),
  );
  const won = responses.filter((response) => response.status === 200);
  const lost = responses.filter(
    (response) => response.status === 409 && response.body.error?.code === 'action_not_pending',
  );
  if (won.length !== 1 || lost.length !== answers - 1) {
    const statuses = responses.map(
      (response) => `${response.status} ${response.body.error?.code ?? response.body.status}`,
    );
    throw new Error(
      `W3: expected 1 × 200 and ${answers - 1} × 409 action_not_pending, got ${JSON.stringify(statuses)}`,
    );
  }
  if (won[0].body.status !== 'completed') throw new Error(`W3: the winning answer ended ${won[0].body.status}.`);
  const [stored] = JSON.parse((await call(first, 'GET', `/api/conversations/${id}/actions`)).body).actions;
  const resolution = JSON.stringify(stored.resolution);
  if (stored.resolution.comment !== `answer ${won[0].index}`)
    throw new Error("W3: the stored answer is not the winner's.");
  for (const response of lost) {
    if (JSON.stringify(response.body.error.details?.resolution) !== resolution)
      throw new Error('W3: a 409 did not carry the stored answer.');
  }
  const runs = toolRuns(toolLog) - runsBefore;
  if (runs !== 1) throw new Error(`W3: the tool ran ${runs} times.`);
  const events = JSON.parse((await call(first, 'GET', `/api/conversations/${id}/events`)).body).events as Array<{
    type: string;
    data: { trigger?: string };
  }>;
  const resolved = events.filter((event) => event.type === 'action.resolved').length;
  const continued = events.filter((event) => event.type === 'turn.started' && event.data.trigger === 'answer').length;
  if (resolved !== 1 || continued !== 1)
    throw new Error(`W3: ${resolved} action.resolved and ${continued} continuations in the log.`);
  return {
    winnerMs: won[0].ms,
    loserMs: lost.map((response) => response.ms),
    lastMs: Math.max(...responses.map((response) => response.ms)),
  };
}

function availableCores(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

function toolRuns(toolLog: string): number {
  return existsSync(toolLog) ? readFileSync(toolLog, 'utf8').split('\n').filter(Boolean).length : 0;
}

/** Opens the sockets the answers will use, so a round measures answers and not TCP handshakes. */
async function warmSockets(serving: Instance[], answers: number): Promise<void> {
  await Promise.all(
    Array.from({ length: answers }, (_, index) => call(serving[index % serving.length], 'GET', '/health')),
  );
}

function call(
  instance: Instance,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; body: string }> {
  return httpCall(instance.url, instance.agent, method, path, body);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runW3();
  for (const row of result.rows)
    console.log(`${row.workload} ${row.figure}: ${row.value} ${row.baseline} ${row.verdict}`);
  console.log(result.details.join('\n'));
}
