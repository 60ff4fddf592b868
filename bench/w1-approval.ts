import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { createHeed, sqliteStore, type Heed } from '../src/index.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import { aiSdkPeerSqlite } from './w1-ai-sdk.js';
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

export interface W1Options {
  warmup?: number;
  /** Cycles of Heed and of the AI SDK peer at synchronous=NORMAL. */
  cycles?: number;
  /** Cycles of the raw better-sqlite3 floor at NORMAL (it is fast, so it gets more). */
  floorCycles?: number;
  /** Cycles of each side at synchronous=FULL (every commit waits for its fsync, so fewer). */
  fullCycles?: number;
  fullWarmup?: number;
}

/** One contender of the interleaved run: runs its cycles up to `end`, recording each cycle's time. */
interface Side {
  label: string;
  cycles: number;
  times: { cycle: Float64Array; start?: Float64Array; pause?: Float64Array; resume?: Float64Array };
  elapsed: number;
  done: number;
  warm(count: number): Promise<void>;
  block(end: number): Promise<void>;
}

/**
 * W1 approval round trip (DESIGN §11) on SQLite files, in one run of alternating blocks (so a noisy
 * neighbour on the machine slows every side alike and the ratios stay fair), at synchronous=NORMAL:
 * Heed, the AI SDK peer (bench/w1-ai-sdk.ts) and the raw better-sqlite3 floor doing the minimal durable
 * writes of one cycle; and at synchronous=FULL: Heed (sqliteStore synchronous 'full'), the same floor with
 * synchronous=FULL (the fsync floor) and the AI SDK peer. Each side has its own file.
 */
export async function runW1(options: W1Options = {}): Promise<WorkloadResult> {
  const warmup = options.warmup ?? 300;
  const cycles = options.cycles ?? 3000;
  const floorCycles = options.floorCycles ?? cycles * 4;
  const fullCycles = options.fullCycles ?? 500;
  const fullWarmup = options.fullWarmup ?? Math.min(warmup, 50);
  const blocks = 10;
  const dir = mkdtempSync(join(tmpdir(), 'heed-bench-w1-'));
  const heeds: Heed[] = [];
  const heedSide = (label: string, synchronous: 'normal' | 'full', count: number) => {
    const { agent, model, refunds } = benchRefundAgent();
    const heed = createHeed({
      agents: [agent],
      store: sqliteStore({ path: join(dir, `heed-${synchronous}.db`), synchronous }),
      sweepIntervalMs: 0,
    });
    heeds.push(heed);
    const side = timedSide(label, count, {
      pause: () => pauseHalf(heed),
      resume: (id) => resumeHalf(heed, id),
      after: () => forgetCalls(model),
    });
    return { side, heed, refunds };
  };
  const heed = heedSide('Heed', 'normal', cycles);
  const heedFull = heedSide('Heed FULL', 'full', fullCycles);
  const peer = aiSdkPeerSqlite(join(dir, 'ai-sdk-normal.db'), 'normal');
  const peerFull = aiSdkPeerSqlite(join(dir, 'ai-sdk-full.db'), 'full');
  const floor = openFloor(join(dir, 'floor-normal.db'), 'normal');
  const floorFull = openFloor(join(dir, 'floor-full.db'), 'full');
  const sides = {
    heed: heed.side,
    peer: timedSide('AI SDK peer', cycles, peer),
    floor: floorSide('floor', floorCycles, floor),
    heedFull: heedFull.side,
    floorFull: floorSide('fsync floor', fullCycles, floorFull),
    peerFull: timedSide('AI SDK peer FULL', fullCycles, peerFull),
  };
  const full = new Set<Side>([sides.heedFull, sides.floorFull, sides.peerFull]);
  try {
    await checkOneCycle(heed.heed);
    await checkOneCycle(heedFull.heed);
    await peer.check();
    await peerFull.check();
    progress(`W1 warm-up: ${warmup} cycles of each side at NORMAL, ${fullWarmup} at FULL`);
    for (const side of Object.values(sides)) await side.warm(full.has(side) ? fullWarmup : warmup);
    progress(
      `W1 measuring in ${blocks} alternating blocks: ${cycles} Heed, ${cycles} AI SDK peer, ${floorCycles} floor cycles at NORMAL; ${fullCycles} of each at FULL`,
    );
    // Garbage collections during the measured blocks, to tell which slow cycles a collection was part of.
    const pauses: Array<[number, number]> = [];
    const collections = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) pauses.push([entry.startTime, entry.startTime + entry.duration]);
    });
    collections.observe({ entryTypes: ['gc'] });
    for (let block = 1; block <= blocks; block++) {
      for (const side of Object.values(sides)) {
        const started = performance.now();
        await side.block(Math.round((side.cycles * block) / blocks));
        side.elapsed += performance.now() - started;
      }
    }
    await new Promise((resolve) => setImmediate(resolve));
    for (const entry of collections.takeRecords()) pauses.push([entry.startTime, entry.startTime + entry.duration]);
    collections.disconnect();
    for (const [name, ran, expected] of [
      ['Heed', heed.refunds.count, 1 + warmup + cycles],
      ['Heed FULL', heedFull.refunds.count, 1 + fullWarmup + fullCycles],
      ['AI SDK peer', peer.refunds.count, 1 + warmup + cycles],
      ['AI SDK peer FULL', peerFull.refunds.count, 1 + fullWarmup + fullCycles],
    ] as const) {
      if (ran !== expected) throw new Error(`W1 ${name}: the tool ran ${ran} times in ${expected} cycles.`);
    }

    const f = Object.fromEntries(Object.entries(sides).map(([name, side]) => [name, figures(side)])) as Record<
      keyof typeof sides,
      Figures
    >;
    const row = (figure: string, value: string, extra: Partial<BenchRow> = {}) => benchRow('W1', figure, value, extra);
    const fullRow = (figure: string, value: string, extra: Partial<BenchRow> = {}) =>
      benchRow('W1 FULL', figure, value, extra);
    const peerRow = (figure: string, value: string, extra: Partial<BenchRow> = {}) =>
      benchRow('W1 AI SDK peer', figure, value, extra);
    const ratioRow = (a: Figures, b: Figures, target?: number) => {
      const ratio = a.rate / b.rate;
      return {
        baseline: `${fmtRate(b.rate)} (${b.label})`,
        ratio: fmtRatio(ratio),
        ...(target === undefined
          ? {}
          : {
              target: `≥ ${target.toFixed(2)}× ${b.label}`,
              verdict: ratio >= target ? ('PASS' as const) : ('MISS' as const),
            }),
      };
    };
    const p50p99 = (x: Figures) => `${fmtMs(percentile(x.cycle, 50))} / ${fmtMs(percentile(x.cycle, 99))}`;
    const halves = (x: Figures, half: 'pause' | 'resume') =>
      `${fmtMs(percentile(x[half]!, 50))} / ${fmtMs(percentile(x[half]!, 99))}`;
    const p99 = percentile(f.heed.cycle, 99);
    const rows: BenchRow[] = [
      row('cycles/s against the AI SDK peer', fmtRate(f.heed.rate), ratioRow(f.heed, f.peer, 1.2)),
      row('cycles/s against the floor', fmtRate(f.heed.rate), ratioRow(f.heed, f.floor, 1 / 3)),
      row('cycle p50', fmtMs(percentile(f.heed.cycle, 50)), {
        baseline: `${fmtMs(percentile(f.peer.cycle, 50))} (AI SDK peer), ${fmtMs(percentile(f.floor.cycle, 50))} (floor)`,
      }),
      row('cycle p99', fmtMs(p99), {
        baseline: `${fmtMs(percentile(f.peer.cycle, 99))} (AI SDK peer), ${fmtMs(percentile(f.floor.cycle, 99))} (floor)`,
        target: '< 2 ms',
        verdict: p99 < 2 ? 'PASS' : 'MISS',
      }),
      row('pause half (create + send) p50 / p99', halves(f.heed, 'pause'), {
        baseline: `${halves(f.peer, 'pause')} (AI SDK peer)`,
      }),
      row('resume half (load + approve) p50 / p99', halves(f.heed, 'resume'), {
        baseline: `${halves(f.peer, 'resume')} (AI SDK peer)`,
      }),
      peerRow('cycles/s against the floor (peer in the Heed column)', fmtRate(f.peer.rate), ratioRow(f.peer, f.floor)),
      fullRow('cycles/s against the fsync floor', fmtRate(f.heedFull.rate), ratioRow(f.heedFull, f.floorFull, 0.9)),
      fullRow('cycles/s against the AI SDK peer at FULL', fmtRate(f.heedFull.rate), ratioRow(f.heedFull, f.peerFull)),
      fullRow('cycle p50 / p99', p50p99(f.heedFull), {
        baseline: `${p50p99(f.peerFull)} (AI SDK peer FULL), ${p50p99(f.floorFull)} (fsync floor)`,
      }),
      peerRow(
        'cycles/s at FULL against the fsync floor (peer in the Heed column)',
        fmtRate(f.peerFull.rate),
        ratioRow(f.peerFull, f.floorFull),
      ),
    ];
    progress('W1 profile: 1000 more cycles on a second Heed whose store calls are timed');
    const profile = await profileCycles(sqliteStore({ path: join(dir, 'profile.db') }), {
      warmup: 200,
      cycles: 1000,
      cycle: async (heed) => resumeHalf(heed, await pauseHalf(heed)),
    });
    const over2 = sides.heed.times.cycle.filter((time) => time >= 2).length;
    const slow = slowCycles(sides.heed, pauses);
    const means = Object.values(f)
      .map((x) => `${x.label} ${fmtMs(x.mean)}`)
      .join(', ');
    const details = [
      `W1: one run of ${blocks} alternating blocks over six sides, each on its own SQLite file (WAL) in ${tmpdir()}, one cycle at a time. At synchronous=NORMAL: Heed (sqliteStore, sweepIntervalMs 0), ${cycles} cycles; the AI SDK peer, ${cycles} cycles; the raw floor, ${floorCycles} cycles; each after ${warmup} warm-up cycles. At synchronous=FULL: Heed (sqliteStore synchronous 'full': 4 of its 6 commits wait for an fsync, docs/architecture.md), the fsync floor and the AI SDK peer, ${fullCycles} cycles each after ${fullWarmup} warm-up cycles. cycles/s is a side's cycles over the time spent in its blocks.`,
      'Heed cycle: createConversation; send("refund order 42") → requires_action (pause half); conversation(id).pendingActions() → approve() → the tool runs, the model says "Refunded." → completed (resume half). One cycle of each Heed is checked first against what is stored (user, assistant, tool, assistant "Refunded."; status idle), and the tool must have run once per cycle.',
      'AI SDK peer (bench/w1-ai-sdk.ts): the Vercel AI SDK 7 alone, `issue_refund` with `needsApproval: true`, `MockLanguageModelV4` calling it and then saying "Refunded.", and the app keeping each conversation\'s messages as one JSON value in one table (better-sqlite3, the same WAL and synchronous setting). Pause half: generateText → a tool-approval-request; the messages inserted. Resume half: the messages read back; a tool-approval-response appended; generateText → the SDK runs the tool, the model answers; the messages updated. 2 write commits a cycle, no events, no pending-action record, no claim against a second answer, no audit. One cycle is checked first (stored: user, assistant tool-call + approval request, tool approval response, tool result, assistant "Refunded."), and the tool must have run once per cycle.',
      `Floor: raw better-sqlite3 on its own file with the same settings, one autocommit prepared statement each: insert the paused record, read it back, mark it resolved, insert the final message (3 write commits); at FULL the same with synchronous=FULL, so each of the 3 commits waits for an fsync.`,
      `Mean cycle: ${means}. ${over2} of ${cycles} Heed cycles at NORMAL (${((100 * over2) / cycles).toFixed(1)}%) took 2 ms or more; ${slow.withCollection} of them overlapped a garbage collection (${slow.collections} collections in Heed's blocks, mean ${fmtMs(slow.meanPause)}, longest ${fmtMs(slow.longestPause)}), the other ${over2 - slow.withCollection} did not.`,
      `DESIGN §11 expected the NORMAL floor at about 8,000–9,000 cycles/s (so about 3,000 cycles/s for Heed); this run measured ${fmtRate(f.floor.rate)}, so the floor ratio target here is ${fmtRate(f.floor.rate / 3)}, and the AI SDK ratio target is ${fmtRate(f.peer.rate * 1.2)}.`,
      describeProfile('SQLite', profile),
    ];
    return { rows, details };
  } finally {
    await Promise.all(heeds.map((h) => h.close()));
    await peer.close();
    await peerFull.close();
    floor.close();
    floorFull.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Figures {
  label: string;
  rate: number;
  mean: number;
  cycle: Float64Array;
  pause?: Float64Array;
  resume?: Float64Array;
}

function figures(side: Side): Figures {
  return {
    label: side.label,
    rate: (side.cycles * 1000) / side.elapsed,
    mean: side.elapsed / side.cycles,
    cycle: sortedCopy(side.times.cycle),
    ...(side.times.pause ? { pause: sortedCopy(side.times.pause) } : {}),
    ...(side.times.resume ? { resume: sortedCopy(side.times.resume) } : {}),
  };
}

/** A side whose cycle has a pause half and a resume half (Heed, the AI SDK peer), each timed. */
function timedSide(
  label: string,
  cycles: number,
  run: { pause(): Promise<string>; resume(id: string): Promise<void>; after?(): void },
): Side {
  const times = {
    cycle: new Float64Array(cycles),
    start: new Float64Array(cycles),
    pause: new Float64Array(cycles),
    resume: new Float64Array(cycles),
  };
  const side: Side = {
    label,
    cycles,
    times,
    elapsed: 0,
    done: 0,
    async warm(count) {
      for (let i = 0; i < count; i++) {
        await run.resume(await run.pause());
        run.after?.();
      }
    },
    async block(end) {
      for (; side.done < end; side.done++) {
        const t0 = performance.now();
        const id = await run.pause();
        const t1 = performance.now();
        await run.resume(id);
        const t2 = performance.now();
        times.start[side.done] = t0;
        times.pause[side.done] = t1 - t0;
        times.resume[side.done] = t2 - t1;
        times.cycle[side.done] = t2 - t0;
        run.after?.();
      }
    },
  };
  return side;
}

/**
 * Of a side's cycles that took 2 ms or more, how many overlapped a garbage collection, and the collections
 * that fell inside its cycles: the p99 target is about these slow cycles.
 */
function slowCycles(side: Side, pauses: Array<[number, number]>) {
  const { cycle, start } = side.times;
  const inSide = pauses.filter(([from]) => cycle.some((time, i) => from >= start![i] && from < start![i] + time));
  let withCollection = 0;
  for (let i = 0; i < cycle.length; i++) {
    const from = start![i];
    const to = from + cycle[i];
    if (cycle[i] >= 2 && pauses.some(([a, b]) => a < to && b > from)) withCollection++;
  }
  const lengths = inSide.map(([a, b]) => b - a);
  return {
    withCollection,
    collections: inSide.length,
    meanPause: lengths.length ? lengths.reduce((x, y) => x + y, 0) / lengths.length : 0,
    longestPause: lengths.length ? Math.max(...lengths) : 0,
  };
}

/** The raw floor: synchronous cycles, so no await between them. */
function floorSide(label: string, cycles: number, floor: { cycle(): void }): Side {
  const times = { cycle: new Float64Array(cycles) };
  const side: Side = {
    label,
    cycles,
    times,
    elapsed: 0,
    done: 0,
    async warm(count) {
      for (let i = 0; i < count; i++) floor.cycle();
    },
    async block(end) {
      for (; side.done < end; side.done++) {
        const t0 = performance.now();
        floor.cycle();
        times.cycle[side.done] = performance.now() - t0;
      }
    },
  };
  return side;
}

export async function pauseHalf(heed: Heed): Promise<string> {
  const conversation = await heed.createConversation({ agent: 'support' });
  const paused = await heed.conversation(conversation.id).send('refund order 42');
  if (paused.status !== 'requires_action') throw new Error(`W1: send ended ${paused.status}, not requires_action.`);
  return conversation.id;
}

export async function resumeHalf(heed: Heed, id: string): Promise<void> {
  const [pending] = await heed.conversation(id).pendingActions();
  if (!pending) throw new Error('W1: no pending action was stored.');
  const done = await pending.approve();
  if (done.status !== 'completed')
    throw new Error(`W1: approve ended ${done.status}${done.error ? ` (${done.error.message})` : ''}.`);
}

/** One cycle, checked against what is stored: the bench measures the workload, not a shortcut. */
export async function checkOneCycle(heed: Heed): Promise<void> {
  const id = await pauseHalf(heed);
  const paused = await heed.conversation(id).get();
  if (paused.runtime.status !== 'requires_action' || paused.runtime.pendingActionIds.length !== 1) {
    throw new Error('W1: the pause was not stored.');
  }
  await resumeHalf(heed, id);
  const done = await heed.conversation(id).get();
  const roles = done.messages.map((message) => message.role).join(',');
  const last = JSON.stringify(done.messages.at(-1));
  if (done.runtime.status !== 'idle' || roles !== 'user,assistant,tool,assistant' || !last.includes('Refunded.')) {
    throw new Error(`W1: unexpected stored conversation after a cycle: ${done.runtime.status} ${roles} ${last}`);
  }
}

/** The minimal durable writes of a cycle, straight on better-sqlite3 (at FULL: the fsync floor). */
function openFloor(path: string, synchronous: 'normal' | 'full'): { cycle(): void; close(): void } {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.exec(`
    CREATE TABLE paused (id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, status TEXT NOT NULL, request TEXT NOT NULL,
      created_at INTEGER NOT NULL, resolution TEXT, resolved_at INTEGER);
    CREATE TABLE messages (id INTEGER PRIMARY KEY, conversation_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,
      created_at INTEGER NOT NULL);
  `);
  const insertPaused = db.prepare(
    "INSERT INTO paused (id, conversation_id, status, request, created_at) VALUES (?, ?, 'pending', ?, ?)",
  );
  const readPaused = db.prepare('SELECT * FROM paused WHERE id = ?');
  const resolve = db.prepare(
    "UPDATE paused SET status = 'resolved', resolution = ?, resolved_at = ? WHERE id = ? AND status = 'pending'",
  );
  const insertMessage = db.prepare(
    "INSERT INTO messages (conversation_id, role, content, created_at) VALUES (?, 'assistant', ?, ?)",
  );
  const request = JSON.stringify({ kind: 'approval', toolName: 'issue_refund', args: { orderId: 42, amount: 5 } });
  const resolution = JSON.stringify({ type: 'approval', decision: 'allow' });
  const final = JSON.stringify([{ type: 'text', text: 'Refunded.' }]);
  let n = 0;
  return {
    cycle() {
      n++;
      const id = `a_${n}`;
      const conversationId = `c_${n}`;
      insertPaused.run(id, conversationId, request, Date.now());
      const row = readPaused.get(id) as { status: string } | undefined;
      if (row?.status !== 'pending') throw new Error('W1 floor: the paused record was not read back.');
      if (resolve.run(resolution, Date.now(), id).changes !== 1)
        throw new Error('W1 floor: the record was not resolved.');
      insertMessage.run(conversationId, final, Date.now());
    },
    close: () => db.close(),
  };
}

// `npx tsx bench/w1-approval.ts`: this section alone (the counts from the same variables as bench/run.ts),
// printed, RESULTS.md untouched.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runW1({
    warmup: Number(process.env.HEED_BENCH_W1_WARMUP ?? 300),
    cycles: Number(process.env.HEED_BENCH_W1_CYCLES ?? 3000),
    fullCycles: Number(process.env.HEED_BENCH_W1_FULL_CYCLES ?? 500),
  });
  for (const r of result.rows)
    console.log([r.workload, r.figure, r.value, r.baseline, r.ratio, r.target, r.verdict].join(' | '));
  console.log(result.details.join('\n'));
}
