import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/store/postgres/postgres-store.js';
import { killAll, type ServeProcess } from '../serve-process.js';
import type { Cluster } from './cluster.js';
import { helpdesk, observe, storedProblems, summary, unclearFailures } from './helpdesk.js';
import { startProxy, type Proxy } from './proxy.js';
import { clusterSkip, newCluster, sleep, workspace } from './setup.js';

/**
 * Two `heed serve` instances on a PostgreSQL cluster of the test's own; instance A reaches it through a
 * TCP proxy, B directly. Twelve clients run the helpdesk flow, six on each. The proxy first resets every
 * connection of A's for 3 s, then, after a pause, swallows A's traffic for 15 s (a partition), then
 * heals. While it lasts A answers with clear JSON errors (503 `store_unavailable`, `Retry-After`), none
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
      'resets, then 15 s of swallowed traffic: clear 503s from the cut-off instance, nothing lost, recovery without a restart',
      { timeout: 240_000 },
      async () => {
        const observed = observe();
        const clients = helpdesk(observed, [a.url, b.url], 12);
        await sleep(3000);
        const resetAt = Date.now() - observed.started;
        proxy!.mode('reset');
        await sleep(3000);
        proxy!.mode('pass');
        await sleep(2000);
        const swallowAt = Date.now() - observed.started;
        proxy!.mode('swallow');
        await sleep(15_000);
        const healedAt = Date.now() - observed.started;
        proxy!.mode('pass');
        await sleep(8000);
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
