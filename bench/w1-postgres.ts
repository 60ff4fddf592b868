import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createHeed, postgresStore, sqliteStore, type Heed } from '../src/index.js';
import { freshDatabase, pgServer, pgSkipReason } from '../test/pg.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import { describeProfile, profileCycles } from './cycle-profile.js';
import {
  fmtMs,
  fmtRate,
  fmtRatio,
  percentile,
  progress,
  sortedCopy,
  benchRow,
  type BenchRow,
  type WorkloadResult,
} from './report.js';
import { checkOneCycle, pauseHalf, resumeHalf } from './w1-approval.js';
import { pgFloor } from './w1-pg-floor.js';
import { aiSdkPeerPostgres } from './w1-ai-sdk.js';

export interface W1PostgresOptions {
  warmup?: number;
  /** Cycles on PostgreSQL; SQLite runs as many beside it. */
  cycles?: number;
}

/**
 * W1 approval round trip (DESIGN §11) on PostgreSQL, beside the same cycle (bench/w1-approval.ts) on a
 * SQLite file, the raw `pg` floor (bench/w1-pg-floor.ts) and the AI SDK peer on pg (bench/w1-ai-sdk.ts) in
 * the same run: they run in alternating blocks so a noisy neighbour slows them alike.
 */
export async function runW1Postgres(options: W1PostgresOptions = {}): Promise<WorkloadResult> {
  if (!pgServer) return { rows: [], details: [`W1 on PostgreSQL skipped: ${pgSkipReason}.`] };
  const warmup = options.warmup ?? 200;
  const cycles = options.cycles ?? 1000;
  const blocks = 10;
  const database = await freshDatabase('heed_bench');
  const dir = mkdtempSync(join(tmpdir(), 'heed-bench-w1pg-'));
  const sides = {
    postgres: side(postgresStore({ connectionString: database.url }), cycles),
    // The opt-in that does not wait for the server's disk flush (postgresStore's synchronousCommit).
    unflushed: side(postgresStore({ connectionString: database.url, synchronousCommit: 'off' }), cycles),
    sqlite: side(sqliteStore({ path: join(dir, 'heed.db') }), cycles),
  };
  // The raw `pg` floor runs in the same blocks (bench/w1-pg-floor.ts).
  const rawFloor = await pgFloor(database.url);
  const floorTimes = new Float64Array(cycles);
  const floor = {
    done: 0,
    elapsed: 0,
    async cycle(index: number) {
      const t0 = performance.now();
      await rawFloor.cycle();
      if (index >= 0) floorTimes[index] = performance.now() - t0;
    },
  };
  // The AI SDK peer (bench/w1-ai-sdk.ts) with its messages in one jsonb column, on the same database.
  const peer = await aiSdkPeerPostgres(database.url);
  const peerTimes = new Float64Array(cycles);
  const peerSide = {
    done: 0,
    elapsed: 0,
    async cycle(index: number) {
      const t0 = performance.now();
      await peer.resume(await peer.pause());
      if (index >= 0) peerTimes[index] = performance.now() - t0;
    },
  };
  const everyone = [...Object.values(sides), floor, peerSide];
  try {
    for (const entry of Object.values(sides)) await checkOneCycle(entry.heed);
    await peer.check();
    progress(
      `W1 on PostgreSQL: ${warmup} warm-up cycles each, then ${cycles} cycles each (Heed on PostgreSQL, synchronousCommit off and SQLite, the raw pg floor, the AI SDK peer on pg) in ${blocks} alternating blocks`,
    );
    for (let i = 0; i < warmup; i++) for (const entry of everyone) await entry.cycle(-1);
    for (let block = 1; block <= blocks; block++) {
      const end = Math.round((cycles * block) / blocks);
      for (const entry of everyone) {
        const started = performance.now();
        for (let i = entry.done; i < end; i++) await entry.cycle(i);
        entry.done = end;
        entry.elapsed += performance.now() - started;
      }
    }
    for (const [name, entry] of Object.entries({ ...sides, 'AI SDK peer': peer })) {
      if (entry.refunds.count !== warmup + cycles + 1)
        throw new Error(`W1 ${name}: the tool ran ${entry.refunds.count} times in ${warmup + cycles + 1} cycles.`);
    }

    const figures = (entry: Side) => ({
      rate: (cycles * 1000) / entry.elapsed,
      cycle: sortedCopy(entry.times.cycle),
      pause: sortedCopy(entry.times.pause),
      resume: sortedCopy(entry.times.resume),
    });
    const pg = figures(sides.postgres);
    const unflushed = figures(sides.unflushed);
    const lite = figures(sides.sqlite);
    const halves = (f: ReturnType<typeof figures>, half: 'pause' | 'resume') =>
      `${fmtMs(percentile(f[half], 50))} / ${fmtMs(percentile(f[half], 99))}`;
    const row = (figure: string, value: string, baseline: string, extra: Partial<BenchRow> = {}) =>
      benchRow('W1 pg', figure, value, { baseline: `${baseline} (SQLite)`, ...extra });
    const floorRate = (cycles * 1000) / floor.elapsed;
    const peerRate = (cycles * 1000) / peerSide.elapsed;
    const p50p99 = (times: Float64Array) => `${fmtMs(percentile(times, 50))} / ${fmtMs(percentile(times, 99))}`;
    const floorCycle = sortedCopy(floorTimes);
    const peerCycle = sortedCopy(peerTimes);
    const rows: BenchRow[] = [
      benchRow('W1 pg', 'cycles/s on PostgreSQL against a raw pg floor', fmtRate(pg.rate), {
        baseline: `${fmtRate(floorRate)} (floor)`,
        ratio: fmtRatio(pg.rate / floorRate),
        target: '≥ 0.33× floor',
        verdict: pg.rate / floorRate >= 1 / 3 ? 'PASS' : 'MISS',
      }),
      benchRow('W1 pg', 'cycles/s on PostgreSQL against the AI SDK peer on pg', fmtRate(pg.rate), {
        baseline: `${fmtRate(peerRate)} (AI SDK peer)`,
        ratio: fmtRatio(pg.rate / peerRate),
      }),
      benchRow('W1 pg', 'cycle p50 / p99 on PostgreSQL', p50p99(pg.cycle), {
        baseline: `${p50p99(peerCycle)} (AI SDK peer), ${p50p99(floorCycle)} (floor)`,
      }),
      benchRow('W1 pg AI SDK peer', 'cycles/s against the raw pg floor (peer in the Heed column)', fmtRate(peerRate), {
        baseline: `${fmtRate(floorRate)} (floor)`,
        ratio: fmtRatio(peerRate / floorRate),
      }),
      row('cycles/s on PostgreSQL', fmtRate(pg.rate), fmtRate(lite.rate), { ratio: fmtRatio(pg.rate / lite.rate) }),
      row('cycle p50', fmtMs(percentile(pg.cycle, 50)), fmtMs(percentile(lite.cycle, 50))),
      row('cycle p99', fmtMs(percentile(pg.cycle, 99)), fmtMs(percentile(lite.cycle, 99))),
      row('pause half p50 / p99', halves(pg, 'pause'), halves(lite, 'pause')),
      row('resume half p50 / p99', halves(pg, 'resume'), halves(lite, 'resume')),
      row('cycles/s, synchronousCommit off (opt-in)', fmtRate(unflushed.rate), fmtRate(lite.rate), {
        ratio: fmtRatio(unflushed.rate / lite.rate),
      }),
      row(
        'cycle p50 / p99, synchronousCommit off',
        `${fmtMs(percentile(unflushed.cycle, 50))} / ${fmtMs(percentile(unflushed.cycle, 99))}`,
        `${fmtMs(percentile(lite.cycle, 50))} / ${fmtMs(percentile(lite.cycle, 99))}`,
      ),
    ];
    progress('W1 on PostgreSQL, profile: 500 more cycles on a second Heed whose store calls are timed');
    const profile = await profileCycles(postgresStore({ connectionString: database.url }), {
      warmup: 100,
      cycles: 500,
      cycle: async (heed) => resumeHalf(heed, await pauseHalf(heed)),
    });
    const details = [
      `W1 on PostgreSQL: the W1 cycle of bench/w1-approval.ts (createConversation; send → requires_action; pendingActions → approve → completed), one at a time, on a Heed with postgresStore (a fresh database on ${redactedServer()}, pool of 10, the server's default settings: synchronous_commit=on, so every commit waits for its WAL flush) and, beside it in the same run, on a Heed with sqliteStore (WAL, synchronous=NORMAL) in ${tmpdir()}.`,
      `${warmup} warm-up cycles each, then ${cycles} measured cycles each in ${blocks} alternating blocks; cycles/s is cycles over the time spent in that side's blocks. One cycle of each was first checked against what is stored.`,
      "Floor (bench/w1-pg-floor.ts): raw `pg` on the same database, a cycle's minimal durable writes in 2 transactions (BEGIN … COMMIT, one per half, each waiting for its WAL flush): the conversation, 2 messages, the action and 5 events; then the action resolved, 2 messages, 5 events and the conversation updated. It runs in the same alternating blocks.",
      'AI SDK peer on pg (bench/w1-ai-sdk.ts): the Vercel AI SDK 7 cycle of the SQLite W1 (generateText with `issue_refund` `needsApproval: true` and `MockLanguageModelV4` → a tool-approval-request; the messages stored; read back; a tool-approval-response appended; generateText → the tool runs, "Refunded."; stored again), with raw `pg` (a pool of 10) on the same database keeping each conversation\'s messages as one jsonb value in one table: an INSERT, a SELECT and an UPDATE, each its own autocommit statement (2 commits waiting for their WAL flush). It runs in the same alternating blocks; one cycle is checked first and the tool must have run once per cycle.',
      "A PostgreSQL commit is one statement (one round trip, returning the row the engine goes on from); a cycle makes 8 round trips over loopback: 6 commits, 4 of them waiting for their WAL flush (the new conversation, the pause, the answer, the turn's end; the turn's claim and the tool's result do not wait, docs/guarantees.md and docs/architecture.md; with synchronousCommit off none does), and 2 reads (store.readConversation, a conversation with the parts a step needs in one statement: the pending actions, the answer's snapshot with the messages its turn needs; the message decides from the record its conversation was created with). No NOTIFY is sent: nothing follows these conversations, so no instance listens. The figure is bound by the commits' flushes.",
      describeProfile('PostgreSQL', profile),
    ];
    return { rows, details };
  } finally {
    await Promise.all(Object.values(sides).map((entry) => entry.heed.close()));
    await rawFloor.close();
    await peer.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Side = ReturnType<typeof side>;

function side(store: Parameters<typeof createHeed>[0]['store'], cycles: number) {
  const { agent, model, refunds } = benchRefundAgent();
  const heed: Heed = createHeed({ agents: [agent], store, sweepIntervalMs: 0 });
  const entry = {
    heed,
    refunds,
    done: 0,
    elapsed: 0,
    times: { cycle: new Float64Array(cycles), pause: new Float64Array(cycles), resume: new Float64Array(cycles) },
    /** One cycle; `index` < 0 is a warm-up cycle (not recorded). */
    async cycle(index: number) {
      const t0 = performance.now();
      const id = await pauseHalf(heed);
      const t1 = performance.now();
      await resumeHalf(heed, id);
      const t2 = performance.now();
      forgetCalls(model);
      if (index < 0) return;
      entry.times.pause[index] = t1 - t0;
      entry.times.resume[index] = t2 - t1;
      entry.times.cycle[index] = t2 - t0;
    },
  };
  return entry;
}

function redactedServer(): string {
  const url = new URL(pgServer!);
  return `PostgreSQL at ${url.hostname}:${url.port || 5432}`;
}

// `npx tsx bench/w1-postgres.ts`: this section alone (HEED_BENCH_W1_PG_CYCLES as in bench/run.ts), printed.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runW1Postgres({
    warmup: Number(process.env.HEED_BENCH_W1_PG_WARMUP ?? 200),
    cycles: Number(process.env.HEED_BENCH_W1_PG_CYCLES ?? 1000),
  });
  for (const r of result.rows)
    console.log([r.workload, r.figure, r.value, r.baseline, r.ratio, r.target, r.verdict].join(' | '));
  console.log(result.details.join('\n'));
}
