import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHeed, sqliteStore, type Heed } from '../src/index.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import {
  fmtBytes,
  fmtMs,
  fmtRatio,
  gcFunction,
  percentile,
  progress,
  settledHeap,
  sortedCopy,
  type BenchRow,
  type WorkloadResult,
  benchRow,
} from './report.js';

export interface W2Options {
  /** Conversations parked at the end (default 10,000). */
  parked?: number;
  /** Lookups timed at each checkpoint (default 200). */
  lookups?: number;
  /** Share of the parked conversations that falls due before each sweep (default 0.01). */
  dueShare?: number;
}

/** A lookup or sweep may take this much longer at N than at N/10 and still count as not growing. */
const GROWTH_TOLERANCE = 1.5;
const KIB = 1024;

interface Checkpoint {
  parked: number;
  fileBytes: number;
  tables: Array<{ name: string; pages: number; bytes: number; payload: number; unused: number }>;
  lookupMedianMs: number;
  lookupP90Ms: number;
  sweepMs: number;
  lapsed: number;
  heapUsed: number;
  rss: number;
}

/**
 * W2 parked footprint (DESIGN §11): parks N conversations on an approval through Heed on a SQLite
 * file, checking store bytes, heap growth, pending-action lookups and the 1% sweep at N/10 and at N.
 * 99% park under an agent whose actions lapse after a day, 1% under one whose actions lapse after a
 * minute; the Heed's clock is moved two minutes on before each sweep, so exactly that 1% is due.
 */
export async function runW2(options: W2Options = {}): Promise<WorkloadResult> {
  const total = options.parked ?? 10_000;
  const lookups = options.lookups ?? 200;
  const dueShare = options.dueShare ?? 0.01;
  const pct = `${+(dueShare * 100).toFixed(2)}%`;
  const small = Math.round(total / 10);
  const gc = gcFunction();
  const dir = mkdtempSync(join(tmpdir(), 'heed-bench-w2-'));
  const path = join(dir, 'parked.db');
  let clock = Date.parse('2030-01-01T00:00:00.000Z');
  const long = benchRefundAgent('support', { timeoutMinutes: 1440 });
  const due = benchRefundAgent('support_due', { timeoutMinutes: 1 });
  const heed = createHeed({
    agents: [long.agent, due.agent],
    store: sqliteStore({ path }),
    sweepIntervalMs: 0,
    now: () => new Date(clock),
  });
  const sample = new Reservoir(lookups);
  let longParked = 0;
  let dueParked = 0;
  const started = performance.now();
  try {
    /** Parks conversations until `longTarget` long ones and `dueTarget` due ones are open, interleaved. */
    const parkUntil = async (longTarget: number, dueTarget: number) => {
      const longToPark = longTarget - longParked;
      const dueToPark = dueTarget - dueParked;
      const count = longToPark + dueToPark;
      for (let i = 0; i < count; i++) {
        // The due ones are spread evenly through the batch, not all at its end.
        const dueNow = Math.floor(((i + 1) * dueToPark) / count) > Math.floor((i * dueToPark) / count);
        const id = await park(heed, dueNow ? 'support_due' : 'support');
        forgetCalls(dueNow ? due.model : long.model);
        if (dueNow) dueParked++;
        else sample.offer(id, longParked++);
      }
    };

    progress(`W2 parking ${small.toLocaleString('en-US')} conversations`);
    await parkUntil(Math.round(small * (1 - dueShare)), Math.round(small * dueShare));
    const first = await checkpoint(
      heed,
      path,
      sample,
      gc,
      () => (clock += 2 * 60_000),
      small,
      Math.round(small * dueShare),
    );
    const heedHeapAtFirst = first.heapUsed;

    progress(`W2 parking up to ${total.toLocaleString('en-US')} conversations`);
    // The sweep at N/10 ended the first 1%; park a fresh 1% that falls due, so N are open again.
    dueParked = 0;
    const parkedBetween = total - small;
    await parkUntil(Math.round(total * (1 - dueShare)), Math.round(total * dueShare));
    const heapAtN = await settledHeap(gc);
    const second = await checkpoint(
      heed,
      path,
      sample,
      gc,
      () => (clock += 2 * 60_000),
      total,
      Math.round(total * dueShare),
    );
    const elapsedS = (performance.now() - started) / 1000;

    const heapPerParked = (heapAtN - heedHeapAtFirst) / parkedBetween;
    const bytesPerParked = second.fileBytes / total;
    const bytesPerParkedSmall = first.fileBytes / small;
    const lookupRatio = second.lookupMedianMs / first.lookupMedianMs;
    const perLapsedSmall = first.sweepMs / first.lapsed;
    const perLapsed = second.sweepMs / second.lapsed;
    const sweepRatio = perLapsed / perLapsedSmall;
    const nLabel = (n: number) => n.toLocaleString('en-US');
    const row = (figure: string, value: string, extra: Partial<BenchRow> = {}) => benchRow('W2', figure, value, extra);
    const rows: BenchRow[] = [
      row(`store bytes / parked conversation (N=${nLabel(total)})`, fmtBytes(bytesPerParked), {
        baseline: `${fmtBytes(bytesPerParkedSmall)} at N/10`,
        target: '≤ 1.5 KiB',
        verdict: bytesPerParked <= 1.5 * KIB ? 'PASS' : 'MISS',
      }),
      row('JS heap growth / parked conversation', `${heapPerParked.toFixed(1)} B`, {
        baseline: `heap ${fmtBytes(heedHeapAtFirst)} at N/10 → ${fmtBytes(heapAtN)} at N`,
        target: '< 50 B',
        verdict: heapPerParked < 50 ? 'PASS' : 'MISS',
      }),
      row('list one conversation’s pending actions, median', fmtMs(second.lookupMedianMs), {
        baseline: `${fmtMs(first.lookupMedianMs)} at N/10`,
        ratio: fmtRatio(lookupRatio),
        target: `flat (≤ ${GROWTH_TOLERANCE}× N/10)`,
        verdict: lookupRatio <= GROWTH_TOLERANCE ? 'PASS' : 'MISS',
      }),
      row(`sweep ${pct} due (${nLabel(second.lapsed)} lapsed), per lapsed action`, fmtMs(perLapsed), {
        baseline: `${fmtMs(perLapsedSmall)} at N/10 (${nLabel(first.lapsed)} lapsed)`,
        ratio: fmtRatio(sweepRatio),
        target: `flat (≤ ${GROWTH_TOLERANCE}× N/10)`,
        verdict: sweepRatio <= GROWTH_TOLERANCE ? 'PASS' : 'MISS',
      }),
      row(`sweep ${pct} due, whole expireDue()`, fmtMs(second.sweepMs), {
        baseline: `${fmtMs(first.sweepMs)} at N/10`,
      }),
      row('process RSS growth / parked conversation', `${((second.rss - first.rss) / parkedBetween).toFixed(0)} B`, {
        baseline: 'includes SQLite’s page cache and allocator slack',
      }),
    ];
    const details = [
      `W2: N = ${nLabel(total)} conversations parked on an approval through Heed (createConversation + send until requires_action) on one SQLite file (WAL, synchronous=NORMAL) in ${tmpdir()}; ${elapsedS.toFixed(1)} s in all.`,
      `${+(100 - dueShare * 100).toFixed(2)}% park under an agent with hitl.timeoutMinutes 1440, ${pct} under one with 1 minute; at N/10 and at N the Heed's clock moves 2 minutes on and expireDue() is timed (each lapsed pause is denied and its turn runs to the end). After the sweep at N/10 a fresh ${pct} is parked, so N pauses are open at N (plus ${nLabel(first.lapsed)} finished conversations).`,
      `Store bytes: the file's size after PRAGMA wal_checkpoint(TRUNCATE) from a second connection, divided by the conversations parked. Heap: heapUsed after forced GC at N/10 (after that checkpoint's lookups and sweep) and at N (before them), divided by the ${nLabel(parkedBetween)} conversations parked in between; the bench keeps only ${lookups} sampled ids.`,
      `Lookups: conversation(id).pendingActions() on ${lookups} conversations sampled uniformly from the open ones, timed one by one.`,
      '',
      `Store pages by table/index at N (dbstat), bytes per parked conversation:`,
      '',
      '| table / index | pages | bytes / parked | payload / parked | unused / parked |',
      '|---|---:|---:|---:|---:|',
      ...second.tables.map(
        (t) =>
          `| ${t.name} | ${t.pages} | ${(t.bytes / total).toFixed(0)} | ${(t.payload / total).toFixed(0)} | ${(t.unused / total).toFixed(0)} |`,
      ),
      `| **file** | | **${(second.fileBytes / total).toFixed(0)}** | | |`,
    ];
    return { rows, details };
  } finally {
    await heed.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function park(heed: Heed, agent: string): Promise<string> {
  const conversation = await heed.createConversation({ agent });
  const result = await heed.conversation(conversation.id).send('refund order 42');
  if (result.status !== 'requires_action') throw new Error(`W2: send ended ${result.status}, not requires_action.`);
  return conversation.id;
}

async function checkpoint(
  heed: Heed,
  path: string,
  sample: Reservoir,
  gc: () => void,
  moveClock: () => void,
  parked: number,
  expectDue: number,
): Promise<Checkpoint> {
  progress(`W2 checkpoint at ${parked.toLocaleString('en-US')} parked`);
  const { fileBytes, tables } = measureFile(path);

  // A few lookups first, so the statements are prepared and the code is warm.
  for (const id of sample.ids.slice(0, 10)) await heed.conversation(id).pendingActions();
  const times: number[] = [];
  for (const id of sample.ids) {
    const t0 = performance.now();
    const pending = await heed.conversation(id).pendingActions();
    times.push(performance.now() - t0);
    if (pending.length !== 1) throw new Error(`W2: ${id} has ${pending.length} pending actions, not 1.`);
  }
  const sorted = sortedCopy(times);

  moveClock();
  const t0 = performance.now();
  const report = await heed.expireDue();
  const sweepMs = performance.now() - t0;
  if (report.lapsed !== expectDue) throw new Error(`W2: the sweep lapsed ${report.lapsed} actions, not ${expectDue}.`);
  if (report.turns.some((turn) => turn.status !== 'completed')) throw new Error('W2: a lapsed turn did not complete.');

  const heapUsed = await settledHeap(gc);
  return {
    parked,
    fileBytes,
    tables,
    lookupMedianMs: percentile(sorted, 50),
    lookupP90Ms: percentile(sorted, 90),
    sweepMs,
    lapsed: report.lapsed,
    heapUsed,
    rss: process.memoryUsage().rss,
  };
}

/** Checkpoints the WAL into the file from a second connection, then sizes the file and its tables. */
function measureFile(path: string): Pick<Checkpoint, 'fileBytes' | 'tables'> {
  const db = new Database(path, { timeout: 5000 });
  try {
    // The store's own background checkpointer may hold the checkpoint lock for a moment: try again.
    let busy = 1;
    for (let attempt = 0; busy && attempt < 200; attempt++) {
      busy = (db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>)[0].busy;
      if (busy) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
    if (busy) throw new Error('W2: the WAL checkpoint was blocked.');
    let walBytes = 0;
    try {
      walBytes = statSync(`${path}-wal`).size;
    } catch {
      // No WAL file: nothing to add.
    }
    let tables: Checkpoint['tables'] = [];
    try {
      tables = db
        .prepare(
          'SELECT name, COUNT(*) AS pages, SUM(pgsize) AS bytes, SUM(payload) AS payload, SUM(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC',
        )
        .all() as Checkpoint['tables'];
    } catch {
      // This SQLite was built without the dbstat table.
    }
    return { fileBytes: statSync(path).size + walBytes, tables };
  } finally {
    db.close();
  }
}

/** A fixed-size uniform sample of the ids seen (algorithm R). */
class Reservoir {
  readonly ids: string[] = [];
  constructor(private readonly size: number) {}

  offer(id: string, index: number): void {
    if (this.ids.length < this.size) this.ids.push(id);
    else {
      const slot = Math.floor(Math.random() * (index + 1));
      if (slot < this.size) this.ids[slot] = id;
    }
  }
}
