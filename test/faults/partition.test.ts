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
  storeUnavailable,
  summary,
  unclearFailures,
} from './helpdesk.js';
import { startProxy, type Proxy } from './proxy.js';
import { clusterSkip, newCluster, sleep, workspace } from './setup.js';

/**
 * Two `heed serve` instances on a PostgreSQL cluster of the test's own; instance A reaches it through a
 * TCP proxy, B directly. Twelve clients run the helpdesk flow, six on each. The proxy first resets every
 * connection of A's for 3 s, then, after a pause, swallows A's traffic (a partition) until A's queries
 * have run past their 10 s deadline and B has gone on meanwhile, then heals. While it lasts A answers with clear JSON errors (503 `store_unavailable`, `Retry-After`), none
 * slower than 30 s; B, untouched, takes over what A held; once healed A serves again, without a restart,
 * and nothing offered or answered with a 2xx is lost.
 */

const space = workspace('partition');
let cluster: Cluster | undefined;
let proxy: Proxy | undefined;
let url = '';
let a: ServeProcess;
let b: ServeProcess;

describe.skipIf(clusterSkip)(
  `a network partition between one instance and PostgreSQL${clusterSkip ? ` (${clusterSkip})` : ''}`,
  () => {
    beforeAll(async () => {
      cluster = await newCluster();
      url = await cluster.createDatabase('heed');
      proxy = await startProxy({ host: '127.0.0.1', port: cluster.port });
      const throughProxy = url.replace(`:${cluster.port}/`, `:${proxy.port}/`);
      [a, b] = await Promise.all([space.serve(['--database-url', throughProxy]), space.serve(['--database-url', url])]);
    }, 90_000);

    afterAll(async () => {
      killAll();
      await proxy?.close();
      await cluster?.destroy();
      space.remove();
    });

    it(
      'resets, then swallowed traffic past the query deadline: clear 503s from the cut-off instance, nothing lost, recovery without a restart',
      { timeout: 240_000 },
      async () => {
        const observed = observe();
        const clients = helpdesk(observed, [a.url, b.url], 12);
        // The load flows on both instances before the resets.
        await refundsThrough(observed, [a.url, b.url]);
        const resetAt = elapsed(observed);
        proxy!.mode('reset');
        // A answers the resets with clear 503s (the check below asks for one).
        await storeUnavailable(observed, a.url, { since: resetAt });
        // fixed wait kept: the resets are the scenario (3 s of them in all, every connection A opens meanwhile reset)
        await sleep(Math.max(0, 3000 - (elapsed(observed) - resetAt)));
        proxy!.mode('pass');
        // A serves again before the partition.
        await refundsThrough(observed, [a.url], { since: elapsed(observed) });
        const swallowAt = elapsed(observed);
        proxy!.mode('swallow');
        // The partition lasts until A's queries have run into their deadline (a 503 to a request made after
        // it began; the server gives a query 10 s) and B has gone on meanwhile.
        await storeUnavailable(observed, a.url, { since: swallowAt });
        await refundsThrough(observed, [b.url], { since: swallowAt });
        const healedAt = elapsed(observed);
        proxy!.mode('pass');
        // A serves again once healed, the same process (what the check below asks of it).
        await refundsThrough(observed, [a.url], { since: healedAt });
        await clients.stop();
        const line = summary(observed);
        console.log(`partition: ${line}; proxy ${JSON.stringify(proxy!.counts())}`);

        // A answered clear errors while cut off, and no answer took longer than 30 s.
        expect(unclearFailures(observed)).toEqual([]);
        expect(observed.failures.filter((failure) => failure.network)).toEqual([]);
        const fromA = observed.failures.filter((failure) => failure.url === a.url && failure.at >= resetAt);
        expect(fromA.some((failure) => failure.status === 503 && failure.code === 'store_unavailable')).toBe(true);
        for (const failure of observed.failures.filter((entry) => entry.code === 'store_unavailable'))
          expect(failure.retryAfter).toBe('5');
        // Nothing but the outage's own errors and the conflicts a careful client reads past.
        expect(observed.failures.filter((failure) => ![503, 409].includes(failure.status!))).toEqual([]);
        // B went on through the partition; A serves again once healed, the same process.
        expect(observed.completed.some((done) => done.url === b.url && done.at > swallowAt && done.at < healedAt)).toBe(
          true,
        );
        expect(observed.completed.some((done) => done.url === a.url && done.at > healedAt)).toBe(true);
        expect(a.child.exitCode).toBeNull();
        expect(observed.problems).toEqual([]);

        const store = postgresStore({ connectionString: url });
        try {
          expect(await storedProblems(store, observed, space.log)).toEqual([]);
        } finally {
          await store.close();
        }
      },
    );
  },
);
