import { performance } from 'node:perf_hooks';
import { createHeed, type Heed, type Store } from '../src/index.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';

/** Where one W1 cycle's time goes: the store's calls, each timed where the engine makes it, and the rest. */
export interface CycleProfile {
  cycles: number;
  /** Mean wall time of a cycle, in ms. */
  cycleMs: number;
  /** Per store method: calls per cycle and ms per cycle spent inside them. */
  calls: Array<{ method: string; perCycle: number; msPerCycle: number }>;
  /** Event rows written per cycle. */
  eventRows: number;
}

/**
 * Runs W1 cycles on a Heed whose store is wrapped with timers. A separate Heed from the measured one,
 * so the timers never touch the headline figures. What the store does not account for is the engine's
 * own JavaScript, the scripted model and the promise hops between them.
 */
export async function profileCycles(
  store: Store,
  options: { warmup: number; cycles: number; cycle: (heed: Heed) => Promise<void> },
): Promise<CycleProfile> {
  const totals = new Map<string, { calls: number; ms: number }>();
  let eventRows = 0;
  let measuring = false;
  const wrappers = new Map<PropertyKey, unknown>();
  const timed = new Proxy(store, {
    get(target, method, receiver) {
      const fn: unknown = Reflect.get(target, method, receiver);
      if (typeof fn !== 'function' || typeof method !== 'string' || method === 'close' || method === 'migrate')
        return fn;
      if (!wrappers.has(method))
        wrappers.set(
          method,
          timer(method, (...args: unknown[]) => fn.apply(target, args)),
        );
      return wrappers.get(method);
    },
  });
  function timer(method: string, call: (...args: unknown[]) => Promise<unknown>) {
    return async (...args: unknown[]) => {
      if (!measuring) return call(...args);
      if (method === 'commit') eventRows += (args[0] as { events?: unknown[] }).events?.length ?? 0;
      const started = performance.now();
      try {
        return await call(...args);
      } finally {
        const entry = totals.get(method) ?? { calls: 0, ms: 0 };
        entry.calls += 1;
        entry.ms += performance.now() - started;
        totals.set(method, entry);
      }
    };
  }
  const { agent, model } = benchRefundAgent();
  const heed = createHeed({ agents: [agent], store: timed, sweepIntervalMs: 0 });
  try {
    for (let i = 0; i < options.warmup; i++) {
      await options.cycle(heed);
      forgetCalls(model);
    }
    measuring = true;
    const started = performance.now();
    for (let i = 0; i < options.cycles; i++) {
      await options.cycle(heed);
      forgetCalls(model);
    }
    const elapsed = performance.now() - started;
    measuring = false;
    const calls = [...totals].map(([method, entry]) => ({
      method,
      perCycle: entry.calls / options.cycles,
      msPerCycle: entry.ms / options.cycles,
    }));
    return { cycles: options.cycles, cycleMs: elapsed / options.cycles, calls, eventRows: eventRows / options.cycles };
  } finally {
    await heed.close();
  }
}

/** The profile as a sentence for bench/RESULTS.md. */
export function describeProfile(name: string, profile: CycleProfile): string {
  const storeMs = profile.calls.reduce((sum, entry) => sum + entry.msPerCycle, 0);
  const share = (ms: number) => `${Math.round((100 * ms) / profile.cycleMs)}%`;
  const parts = profile.calls
    .sort((a, b) => b.msPerCycle - a.msPerCycle)
    .map(
      (entry) =>
        `${entry.method} ×${+entry.perCycle.toFixed(2)} ${(entry.msPerCycle * 1000).toFixed(0)} µs (${share(entry.msPerCycle)})`,
    );
  return (
    `Where the time goes now (${name}, ${profile.cycles} cycles on a second Heed whose store calls are timed; mean cycle ${(profile.cycleMs * 1000).toFixed(0)} µs): ` +
    `${parts.join(', ')}; ${+profile.eventRows.toFixed(2)} event rows per cycle. ` +
    `The store accounts for ${share(storeMs)}; the other ${share(profile.cycleMs - storeMs)} is the engine's JavaScript, the scripted model and the awaits between them.`
  );
}
