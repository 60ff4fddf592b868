import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';

/** One line of the results table. */
export interface BenchRow {
  workload: string;
  figure: string;
  /** Heed's figure, formatted. */
  value: string;
  /** The baseline measured in the same run, formatted ('' when the figure has none). */
  baseline: string;
  /** value / baseline, formatted ('' when none). */
  ratio: string;
  target: string;
  /** PASS / MISS against the target; 'info' for figures without one. */
  verdict: 'PASS' | 'MISS' | 'info';
}

/** What a workload hands back: its rows, and free text for RESULTS.md (method, breakdowns). */
export interface WorkloadResult {
  rows: BenchRow[];
  details: string[];
}

/** Percentile of already sorted numbers (nearest rank). */
/** A row of the results table, informational unless `extra` sets a target and verdict. */
export function benchRow(workload: string, figure: string, value: string, extra: Partial<BenchRow> = {}): BenchRow {
  return { workload, figure, value, baseline: '', ratio: '', target: '', verdict: 'info', ...extra };
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values as ArrayLike<number>).sort();
}

export const fmtMs = (ms: number) =>
  ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(3)} ms`;
export const fmtRate = (perSecond: number) => `${Math.round(perSecond).toLocaleString('en-US')}/s`;
export const fmtBytes = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MiB`
    : bytes >= 1024
      ? `${(bytes / 1024).toFixed(2)} KiB`
      : `${Math.round(bytes)} B`;
export const fmtRatio = (ratio: number) => `${ratio.toFixed(2)}×`;

/** A gc() that works with or without `--expose-gc`. */
export function gcFunction(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Collects garbage until the heap stops shrinking, then returns heapUsed. */
export async function settledHeap(gc: () => void): Promise<number> {
  let last = Infinity;
  for (let round = 0; round < 6; round++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    const used = process.memoryUsage().heapUsed;
    if (used >= last - 1024) return used;
    last = used;
  }
  return last;
}

export function progress(text: string): void {
  process.stderr.write(`  ${text}\n`);
}
