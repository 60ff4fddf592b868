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
 * `heed serve` instances on a PostgreSQL cluster of the test's own, twelve helpdesk clients: six on
 * instance B, six on "instance A", which is killed (SIGKILL) five times at moments nobody chose, its
 * clients then going to a replacement (started beforehand, so the run does not wait for a start). The
 * killed instance's clients lose their connections (that is what a kill costs); the survivors take
 * over the turns it held once their lease lapses; nothing offered or answered with a 2xx is lost and no
 * refund runs under two keys. The kill times are printed so a failure can be replayed
 * (HEED_FAULTS_KILL_AFTER_MS=a,b,c,d,e).
 */

const KILLS = 5;
const space = workspace('kill');
let cluster: Cluster | undefined;
let url = '';
let b: ServeProcess;
/** The instances that play A one after another; the last one is alive at the end. */
let slotA: ServeProcess[] = [];

describe.skipIf(clusterSkip)(`an instance killed under load${clusterSkip ? ` (${clusterSkip})` : ''}`, () => {
  beforeAll(async () => {
    cluster = await newCluster();
    url = await cluster.createDatabase('heed');
    // Every replacement is started now, before the load: a start under the load would wait for CPU.
    const started = await Promise.all(Array.from({ length: KILLS + 2 }, () => space.serve(['--database-url', url])));
    b = started.pop()!;
    slotA = started;
  }, 240_000);

  afterAll(async () => {
    killAll();
    await cluster?.destroy();
    space.remove();
  });

  it('SIGKILL five times under load: nothing lost, nothing run under two keys', { timeout: 180_000 }, async () => {
    const given = process.env.HEED_FAULTS_KILL_AFTER_MS?.split(',').map(Number);
    const killAfter = given ?? Array.from({ length: KILLS }, () => 800 + Math.floor(Math.random() * 1500));
    const observed = observe();
    let current = 0;
    const clients = helpdesk(observed, [() => slotA[current].url, b.url], 12);
    // The load flows on both instances before the first kill.
    await refundsThrough(observed, [slotA[0].url, b.url]);
    for (const after of killAfter) {
      // fixed wait kept: the kill moments are the scenario (random, printed so a failure can be replayed)
      await sleep(after);
      expect(await slotA[current].stop('SIGKILL')).toBe('SIGKILL');
      current++;
    }
    const lastKill = elapsed(observed);
    // The last replacement serves the killed instance's clients (what the check below asks of it).
    await refundsThrough(observed, [slotA[KILLS].url], { since: lastKill });
    const stopping = Date.now();
    await clients.stop();
    console.log(`the clients finished ${Date.now() - stopping} ms after being told to stop`);
    console.log(`kills after ${killAfter.join(', ')} ms: ${summary(observed)}`);

    // Only the clients of a killed instance lost connections; every answer was a clear one.
    const killed = new Set(slotA.slice(0, KILLS).map((server) => server.url));
    expect(observed.failures.filter((failure) => failure.network && !killed.has(failure.url))).toEqual([]);
    expect(unclearFailures(observed)).toEqual([]);
    expect(observed.completed.some((done) => done.url === slotA[KILLS].url && done.at > lastKill)).toBe(true);
    expect(observed.problems).toEqual([]);

    const store = postgresStore({ connectionString: url });
    try {
      expect(await storedProblems(store, observed, space.log)).toEqual([]);
      console.log(`kills: ${await takeovers(store, observed)} turns taken over`);
    } finally {
      await store.close();
    }
  });
});
