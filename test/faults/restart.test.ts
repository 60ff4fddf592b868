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
import { clusterSkip, newCluster, workspace } from './setup.js';

/**
 * Two `heed serve` instances on a PostgreSQL cluster of the test's own, twelve helpdesk clients over
 * both; the cluster is restarted twice under them, once cleanly (`pg_ctl restart -m fast`: every
 * connection closed, 57P01) and once as a crash (`-m immediate`). While it is down the instances
 * answer 503 `store_unavailable` with `Retry-After`; once it is back they serve again without a
 * restart, and turns cut off in between are carried on.
 */

const space = workspace('restart');
let cluster: Cluster | undefined;
let url = '';
let a: ServeProcess;
let b: ServeProcess;

describe.skipIf(clusterSkip)(
  `the PostgreSQL cluster restarted under load${clusterSkip ? ` (${clusterSkip})` : ''}`,
  () => {
    beforeAll(async () => {
      cluster = await newCluster();
      url = await cluster.createDatabase('heed');
      [a, b] = await Promise.all([space.serve(['--database-url', url]), space.serve(['--database-url', url])]);
    }, 90_000);

    afterAll(async () => {
      killAll();
      await cluster?.destroy();
      space.remove();
    });

    it(
      'restarted twice (fast, then immediate): clear 503s while it is down, then both instances go on; nothing lost',
      { timeout: 240_000 },
      async () => {
        const observed = observe();
        const clients = helpdesk(observed, [a.url, b.url], 12);
        // The load flows on both instances before each restart: first from the start, then once the
        // cluster is back from the clean restart.
        await refundsThrough(observed, [a.url, b.url]);
        await cluster!.restart('fast');
        await refundsThrough(observed, [a.url, b.url], { since: elapsed(observed) });
        await cluster!.restart('immediate');
        const backAt = elapsed(observed);
        // Both serve again after the crash, without a restart of their own (what the check below asks of them).
        await refundsThrough(observed, [a.url, b.url], { since: backAt });
        await clients.stop();
        console.log(`cluster restarts: ${summary(observed)}`);

        expect(unclearFailures(observed)).toEqual([]);
        expect(observed.failures.filter((failure) => failure.network)).toEqual([]);
        for (const failure of observed.failures.filter((entry) => entry.code === 'store_unavailable'))
          expect(failure.retryAfter).toBe('5');
        expect(observed.failures.filter((failure) => ![503, 409].includes(failure.status!))).toEqual([]);
        for (const server of [a, b]) {
          expect(observed.completed.some((done) => done.url === server.url && done.at > backAt)).toBe(true);
          expect(server.child.exitCode).toBeNull();
        }
        expect(observed.problems).toEqual([]);

        const store = postgresStore({ connectionString: url });
        try {
          expect(await storedProblems(store, observed, space.log)).toEqual([]);
          console.log(`cluster restarts: ${await takeovers(store, observed)} turns cut off were carried on`);
        } finally {
          await store.close();
        }
      },
    );
  },
);
