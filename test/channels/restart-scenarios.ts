/**
 * The crash tests of a Chat SDK platform (docs/channels.md, "Recorded before acknowledged"): `heed serve`
 * runs as a process on a SQLite file (test/fixtures/channels.config.ts) and kills itself with SIGKILL right
 * after a chosen commit; it is started again on the same file, and the platform (a local fake of its API,
 * test/channels/platforms.ts) sends again what was never acknowledged. Whatever was recorded is kept once,
 * each post is sent once, and the tool runs once.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { fixtureConfig } from '../cli.js';
import { killAll, spawnServe, startServe } from '../serve-process.js';
import { deliver, platformFake, type PlatformFake, type PlatformName } from './platforms.js';

const ids = { telegram: '222', github: '222', linear: 'u-bob', discord: '222', teams: '29:bob', gchat: 'users/102' };

export function restartTests(name: PlatformName): void {
  const dirs: string[] = [];
  afterAll(() => {
    killAll();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh SQLite file and fake API, and how to start `heed serve` on them (dying after `crashAfter`). */
  async function setUp() {
    const dir = mkdtempSync(join(tmpdir(), `heed-${name}-restart-`));
    dirs.push(dir);
    const fake = await platformFake(name);
    const args = ['--config', fixtureConfig('channels.config.ts')];
    const env = (crashAfter?: string) => ({
      HEED_CHANNEL_DIR: dir,
      HEED_CHANNEL: name,
      HEED_CHANNEL_CONFIG: JSON.stringify(fake.config, (_key, value: unknown) =>
        typeof value === 'function' ? (value as () => unknown)() : value,
      ),
      HEED_DATABASE_URL: '',
      ...(crashAfter ? { HEED_CRASH_AFTER: crashAfter } : {}),
    });
    const start = (crashAfter?: string) => startServe(args, env(crashAfter));
    /** A process that dies on its own (maybe before it listens): resolves with how it ended. */
    const runUntilDead = (crashAfter: string) => spawnServe(args, env(crashAfter)).exited;
    const runs = () => {
      const file = join(dir, 'runs.log');
      return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    };
    return { dir, fake, start, runUntilDead, runs };
  }

  /** What the file holds once the server has stopped: the one conversation, and the state of its posts. */
  async function stored(dir: string) {
    const store = sqliteStore({ path: join(dir, 'heed.db') });
    try {
      const conversations = await store.listConversations({});
      expect(conversations).toHaveLength(1);
      const id = conversations[0].id;
      return {
        messages: await store.listMessages(id),
        actions: await store.listActions(id),
        deliveries: await store.listDeliveries({}),
      };
    } finally {
      await store.close();
    }
  }

  /** Each post once: the approval, the reply; the request's card edited to say Bob allowed it. */
  async function expectPostedOnce(fake: PlatformFake) {
    expect(fake.requests()).toHaveLength(1);
    expect(fake.posted('Done.')).toHaveLength(1);
    expect(fake.edits().length).toBeGreaterThan(0);
    for (const edit of fake.edits()) expect(edit).toContain('Allowed by @bob');
  }

  async function expectStoredOnce(dir: string) {
    const { messages, actions, deliveries } = await stored(dir);
    expect(messages.filter((message) => message.role === 'user')).toHaveLength(1);
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({ status: 'resolved', resolvedBy: `${name}:${ids[name]}`, channel: name });
    // Nothing is left to send later: every post of the outbox was sent, and is counted above.
    expect(deliveries.map((delivery) => delivery.status)).toEqual(deliveries.map(() => 'delivered'));
  }

  describe(`${name}: a crash (SIGKILL) loses nothing and runs nothing twice`, () => {
    it('killed after the mention is recorded, before it is acknowledged: the re-sent mention is kept once, the approval posted once, the tool runs once', async () => {
      const { dir, fake, start, runs } = await setUp();
      let server = await start('message.created');
      const mention = fake.mention();
      // The process dies with the message recorded: the platform never gets its answer.
      await expect(deliver(server.url, name, mention)).rejects.toThrow();
      expect(await server.exited).toBe('SIGKILL');
      expect(fake.requests()).toEqual([]);

      // Restarted; the platform sends the mention again. The turn the dead process had begun is taken over.
      server = await start();
      expect((await deliver(server.url, name, mention)).status).toBe(200);
      await fake.api.until(() => fake.requests().length > 0, 30_000);
      expect((await deliver(server.url, name, fake.approve(fake.requests()[0]))).status).toBe(200);
      await fake.api.until(() => fake.posted('Done.').length > 0 && fake.edits().length > 0, 30_000);
      expect(await server.stop()).toBe(0);

      expect(runs()).toHaveLength(1);
      await expectPostedOnce(fake);
      await expectStoredOnce(dir);
      await fake.close();
    }, 120_000);

    it('killed after the click is recorded, before it is acknowledged, then after the reply is recorded, before it is posted: the tool runs once, the reply is posted once', async () => {
      const { dir, fake, start, runUntilDead, runs } = await setUp();
      let server = await start('action.resolved');
      expect((await deliver(server.url, name, fake.mention())).status).toBe(200);
      await fake.api.until(() => fake.requests().length > 0, 30_000);
      const approve = fake.approve(fake.requests()[0]);
      // The answer is recorded (and its continuation claimed); the process dies before the platform has a 200.
      await expect(deliver(server.url, name, approve)).rejects.toThrow();
      expect(await server.exited).toBe('SIGKILL');
      expect(runs()).toEqual([]);

      // Restarted: the continuation, its lease run out, is taken over; the tool runs and the reply is
      // recorded with its post in the outbox, and the process dies before sending it.
      expect(await runUntilDead('turn.completed')).toBe('SIGKILL');
      expect(runs()).toHaveLength(1);
      expect(fake.posted('Done.')).toEqual([]);

      // Restarted again; the platform sends the click once more: the reply is posted, nothing runs again.
      server = await start();
      expect((await deliver(server.url, name, approve)).status).toBe(200);
      await fake.api.until(() => fake.posted('Done.').length > 0 && fake.edits().length > 0, 30_000);
      expect(await server.stop()).toBe(0);

      expect(runs()).toHaveLength(1);
      await expectPostedOnce(fake);
      await expectStoredOnce(dir);
      await fake.close();
    }, 120_000);
  });
}
