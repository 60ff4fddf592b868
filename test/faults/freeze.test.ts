import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/store/postgres/postgres-store.js';
import { killAll, type ServeProcess } from '../serve-process.js';
import type { Cluster } from './cluster.js';
import {
  elapsed,
  helpdesk,
  observe,
  refundsThrough,
  storedProblems,
  summary,
  takeovers,
  unclearFailures,
} from './helpdesk.js';
import { clusterSkip, newCluster, sleep, workspace } from './setup.js';

/**
 * Two `heed serve` instances on a PostgreSQL cluster of the test's own, twelve helpdesk clients over
 * both. Instance A is frozen (SIGSTOP) for 6 s, four times its 1.5 s lease, twice, while its clients
 * keep sending: B takes over the turns A held. When A wakes, the requests it had under way and those
 * that queued on its connections meanwhile are answered (no connection reset), with what the
 * conversation holds (a turn B carried on is reported as B ended it, never as "cancelled", never with
 * an action that is not stored); nothing offered or answered with a 2xx is lost.
 */

const space = workspace('freeze');
let cluster: Cluster | undefined;
let url = '';
let a: ServeProcess;
let b: ServeProcess;

describe.skipIf(clusterSkip)(`an instance frozen past its lease${clusterSkip ? ` (${clusterSkip})` : ''}`, () => {
  beforeAll(async () => {
    cluster = await newCluster();
    url = await cluster.createDatabase('heed');
    [a, b] = await Promise.all([space.serve(['--database-url', url]), space.serve(['--database-url', url])]);
  }, 90_000);

  afterAll(async () => {
    if (a) process.kill(a.pid, 'SIGCONT');
    killAll();
    await cluster?.destroy();
    space.remove();
  });

  it(
    'SIGSTOP for four leases, twice, under load: every request answered, no reset, nothing lost',
    { timeout: 240_000 },
    async () => {
      const observed = observe();
      const clients = helpdesk(observed, [a.url, b.url], 12);
      const woke: number[] = [];
      for (let round = 0; round < 2; round++) {
        // The load flows on both before each freeze (before the second: A serves again since it woke).
        await refundsThrough(observed, [a.url, b.url], { since: woke.at(-1) ?? 0 });
        process.kill(a.pid, 'SIGSTOP');
        // fixed wait kept: the freeze is the scenario (four of A's 1.5 s leases, so B takes over its turns)
        await sleep(6000);
        process.kill(a.pid, 'SIGCONT');
        woke.push(elapsed(observed));
      }
      // A serves again after waking (what the check below asks of it).
      await refundsThrough(observed, [a.url], { since: woke[1] });
      await clients.stop();
      console.log(`freeze: ${summary(observed)}`);

      // No connection was reset or dropped: what A had under way, and what queued on its kept-alive connections, got an answer.
      expect(observed.failures.filter((failure) => failure.network)).toEqual([]);
      expect(unclearFailures(observed)).toEqual([]);
      // A served again after waking, the same process.
      expect(observed.completed.some((done) => done.url === a.url && done.at > woke[1])).toBe(true);
      expect(a.child.exitCode).toBeNull();
      expect(observed.problems).toEqual([]);

      const store = postgresStore({ connectionString: url });
      try {
        expect(await storedProblems(store, observed, space.log)).toEqual([]);
        // The freezes cost A its claim on turns it was running, which B took over.
        const moved = await takeovers(store, observed);
        console.log(`freeze: ${moved} turns taken over, ${observed.moved} answers reported how a moved turn ended`);
        expect(moved).toBeGreaterThan(0);
      } finally {
        await store.close();
      }
    },
  );
});
