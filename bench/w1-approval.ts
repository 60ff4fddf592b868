import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHeed, sqliteStore, type Heed } from '../src/index.js';
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

export interface W1Options {
  warmup?: number;
  cycles?: number;
  /** Cycles of the raw better-sqlite3 floor (it is fast, so it gets more). */
  floorCycles?: number;
}

/**
 * W1 approval round trip (DESIGN §11) on a SQLite file, beside the raw better-sqlite3 floor doing
 * the minimal durable writes of one cycle on its own file. The two run in alternating blocks, so a
 * noisy neighbour on the machine slows both alike and the ratio stays fair.
 */
export async function runW1(options: W1Options = {}): Promise<WorkloadResult> {
  const warmup = options.warmup ?? 300;
  const cycles = options.cycles ?? 3000;
  const floorCycles = options.floorCycles ?? cycles * 4;
  const blocks = 10;
  const dir = mkdtempSync(join(tmpdir(), 'heed-bench-w1-'));
  const { agent, model, refunds } = benchRefundAgent();
  const heed = createHeed({ agents: [agent], store: sqliteStore({ path: join(dir, 'heed.db') }), sweepIntervalMs: 0 });
  const floor = openFloor(join(dir, 'floor.db'));
  try {
    await checkOneCycle(heed);
    progress(`W1 warm-up: ${warmup} Heed cycles, ${warmup} floor cycles`);
    for (let i = 0; i < warmup; i++) {
      await resumeHalf(heed, await pauseHalf(heed));
      forgetCalls(model);
      floor.cycle();
    }
    progress(`W1 measuring ${cycles} Heed cycles and ${floorCycles} floor cycles in ${blocks} alternating blocks`);
    const heedTimes = {
      cycle: new Float64Array(cycles),
      pause: new Float64Array(cycles),
      resume: new Float64Array(cycles),
      elapsed: 0,
    };
    const floorTimes = { cycle: new Float64Array(floorCycles), elapsed: 0 };
    const refundsBefore = refunds.count;
    let h = 0;
    let f = 0;
    for (let block = 1; block <= blocks; block++) {
      const heedEnd = Math.round((cycles * block) / blocks);
      const heedStart = performance.now();
      for (; h < heedEnd; h++) {
        const t0 = performance.now();
        const id = await pauseHalf(heed);
        const t1 = performance.now();
        await resumeHalf(heed, id);
        const t2 = performance.now();
        heedTimes.pause[h] = t1 - t0;
        heedTimes.resume[h] = t2 - t1;
        heedTimes.cycle[h] = t2 - t0;
        forgetCalls(model);
      }
      heedTimes.elapsed += performance.now() - heedStart;
      const floorEnd = Math.round((floorCycles * block) / blocks);
      const floorStart = performance.now();
      for (; f < floorEnd; f++) {
        const t0 = performance.now();
        floor.cycle();
        floorTimes.cycle[f] = performance.now() - t0;
      }
      floorTimes.elapsed += performance.now() - floorStart;
    }
    if (refunds.count - refundsBefore !== cycles)
      throw new Error(`W1: the tool ran ${refunds.count - refundsBefore} times in ${cycles} cycles.`);

    const heedRate = (cycles * 1000) / heedTimes.elapsed;
    const floorRate = (floorCycles * 1000) / floorTimes.elapsed;
    const cycle = sortedCopy(heedTimes.cycle);
    const pause = sortedCopy(heedTimes.pause);
    const resume = sortedCopy(heedTimes.resume);
    const floorCycle = sortedCopy(floorTimes.cycle);
    const ratio = heedRate / floorRate;
    const p99 = percentile(cycle, 99);
    const over2 = heedTimes.cycle.filter((time) => time >= 2).length;
    const row = (figure: string, value: string, extra: Partial<BenchRow> = {}) => benchRow('W1', figure, value, extra);
    const rows: BenchRow[] = [
      row('cycles/s', fmtRate(heedRate), {
        baseline: `${fmtRate(floorRate)} (floor)`,
        ratio: fmtRatio(ratio),
        target: '≥ 0.33× floor',
        verdict: ratio >= 1 / 3 ? 'PASS' : 'MISS',
      }),
      row('cycle p50', fmtMs(percentile(cycle, 50)), { baseline: `${fmtMs(percentile(floorCycle, 50))} (floor)` }),
      row('cycle p99', fmtMs(p99), {
        baseline: `${fmtMs(percentile(floorCycle, 99))} (floor)`,
        target: '< 2 ms',
        verdict: p99 < 2 ? 'PASS' : 'MISS',
      }),
      row('pause half (create + send) p50 / p99', `${fmtMs(percentile(pause, 50))} / ${fmtMs(percentile(pause, 99))}`),
      row(
        'resume half (load + approve) p50 / p99',
        `${fmtMs(percentile(resume, 50))} / ${fmtMs(percentile(resume, 99))}`,
      ),
    ];
    progress('W1 profile: 1000 more cycles on a second Heed whose store calls are timed');
    const profile = await profileCycles(sqliteStore({ path: join(dir, 'profile.db') }), {
      warmup: 200,
      cycles: 1000,
      cycle: async (heed) => resumeHalf(heed, await pauseHalf(heed)),
    });
    const details = [
      `W1: ${warmup} warm-up cycles, then ${cycles} measured cycles, one at a time, on one Heed (sqliteStore, WAL, synchronous=NORMAL, sweepIntervalMs 0) in ${tmpdir()}.`,
      'A cycle: createConversation; send("refund order 42") → requires_action (pause half); conversation(id).pendingActions() → approve() → the tool runs, the model says "Refunded." → completed (resume half). One cycle is checked first against what is stored (user, assistant, tool, assistant "Refunded."; status idle).',
      `Floor: raw better-sqlite3 on its own file with the same settings, one autocommit prepared statement each: insert the paused record, read it back, mark it resolved, insert the final message. ${floorCycles} cycles after ${warmup} warm-up.`,
      `Heed and the floor run in ${blocks} alternating blocks; cycles/s is cycles over the time spent in that side's blocks. Heed mean cycle ${fmtMs(heedTimes.elapsed / cycles)}, floor mean ${fmtMs(floorTimes.elapsed / floorCycles)}; ${over2} of ${cycles} Heed cycles (${((100 * over2) / cycles).toFixed(1)}%) took 2 ms or more.`,
      `DESIGN §11 expected this floor at about 8,000–9,000 cycles/s (so about 3,000 cycles/s for Heed); this run measured ${fmtRate(floorRate)}, so the ratio target here is ${fmtRate(floorRate / 3)}.`,
      describeProfile('SQLite', profile),
    ];
    return { rows, details };
  } finally {
    await heed.close();
    floor.close();
    rmSync(dir, { recursive: true, force: true });
  }
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

/** The minimal durable writes of a cycle, straight on better-sqlite3. */
function openFloor(path: string): { cycle(): void; close(): void } {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
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
