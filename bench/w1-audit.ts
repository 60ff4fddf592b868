import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHeed, sqliteStore, type Heed } from '../src/index.js';
import type { Store } from '../src/store/store.js';
import { benchRefundAgent, forgetCalls } from './refund-agent.js';
import { benchRow, fmtMs, fmtRate, percentile, progress, sortedCopy, type WorkloadResult } from './report.js';
import { pauseHalf, resumeHalf } from './w1-approval.js';

/**
 * What the audit log costs W1 (docs/operating.md, The audit log): the same cycle on two Heeds in the same
 * run, alternating blocks, each on its own SQLite file; on one, the store is handed each commit without its
 * audit entries, so the difference is the append (the entries are still worked out on both sides).
 */
export async function runW1Audit(options: { warmup?: number; cycles?: number } = {}): Promise<WorkloadResult> {
  const warmup = options.warmup ?? 300;
  const cycles = options.cycles ?? 3000;
  // Short blocks: a noisy neighbour on the machine then lands on both sides alike.
  const blocks = 100;
  const dir = mkdtempSync(join(tmpdir(), 'heed-bench-audit-'));
  const sides = [
    { name: 'with', store: sqliteStore({ path: join(dir, 'with.db') }) },
    { name: 'without', store: withoutAudit(sqliteStore({ path: join(dir, 'without.db') })) },
  ].map((side) => {
    const { agent, model } = benchRefundAgent();
    const heed: Heed = createHeed({ agents: [agent], store: side.store, sweepIntervalMs: 0 });
    return { ...side, heed, model, times: new Float64Array(cycles), elapsed: 0, done: 0 };
  });
  try {
    progress(`W1 audit: ${warmup} warm-up cycles each, then ${cycles} each in ${blocks} alternating blocks`);
    for (const side of sides)
      for (let i = 0; i < warmup; i++) {
        await resumeHalf(side.heed, await pauseHalf(side.heed));
        forgetCalls(side.model);
      }
    for (let block = 1; block <= blocks; block++) {
      const end = Math.round((cycles * block) / blocks);
      for (const side of sides) {
        const start = performance.now();
        for (; side.done < end; side.done++) {
          const t0 = performance.now();
          await resumeHalf(side.heed, await pauseHalf(side.heed));
          side.times[side.done] = performance.now() - t0;
          forgetCalls(side.model);
        }
        side.elapsed += performance.now() - start;
      }
    }
    const [withAudit, without] = sides;
    const entries = (await withAudit.store.listAudit({ limit: 1 })).length;
    if (entries !== 1 || (await without.store.listAudit({ limit: 1 })).length !== 0)
      throw new Error('W1 audit: the side with the audit log wrote none, or the other wrote some.');
    const mean = (side: (typeof sides)[number]) => side.elapsed / cycles;
    const p50 = (side: (typeof sides)[number]) => percentile(sortedCopy(side.times), 50);
    // From the medians: on a shared machine a few slow cycles move the means more than the append does.
    const share = (p50(withAudit) - p50(without)) / p50(withAudit);
    const rows = [
      benchRow('W1 audit', 'cycles/s with the audit log', fmtRate((cycles * 1000) / withAudit.elapsed), {
        baseline: `${fmtRate((cycles * 1000) / without.elapsed)} (without)`,
      }),
      benchRow(
        'W1 audit',
        'cycle mean / p50 with the audit log',
        `${fmtMs(mean(withAudit))} / ${fmtMs(p50(withAudit))}`,
        {
          baseline: `${fmtMs(mean(without))} / ${fmtMs(p50(without))} (without)`,
        },
      ),
      benchRow('W1 audit', 'share of a cycle the audit append takes (p50)', `${(share * 100).toFixed(1)} %`, {
        target: '< 10 %',
        verdict: share < 0.1 ? 'PASS' : 'MISS',
      }),
    ];
    const details = [
      `W1 audit: the W1 cycle (createConversation; send → requires_action; pendingActions → approve → completed) on two Heeds, each on its own SQLite file (WAL, synchronous=NORMAL), ${warmup} warm-up cycles each, then ${cycles} each in ${blocks} alternating blocks.`,
      'One cycle records one decision (the answer): an audit entry chained in the commit that settles the action. On the "without" side the store is handed each commit without its entries, so the difference is the append itself (reading the chain head, hashing, two inserts); working out the entry (an HMAC of the user id, a SHA-256 of the arguments) happens on both sides.',
    ];
    return { rows, details };
  } finally {
    for (const side of sides) await side.heed.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The store, handed every commit without its audit entries. */
function withoutAudit(store: Store): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'commit')
        return (change: Parameters<Store['commit']>[0]) => target.commit({ ...change, audit: undefined });
      return Reflect.get(target, property, receiver);
    },
  });
}
