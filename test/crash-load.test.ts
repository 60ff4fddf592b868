import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { conversationProblems } from './invariants.js';
import { fixtureConfig } from './cli.js';
import { call, killAll, startServe, type ServeProcess } from './serve-process.js';

/**
 * SIGKILL at a moment nobody chose: many conversations pause and resume at once, the process is
 * killed mid-flight (inside whatever write, model call or tool run was under way), restarted, killed
 * again. Nothing is half-written, every answer that got a 2xx is kept, and each tool call has its
 * effect once. The kill times are printed so a failure can be replayed (HEED_KILL_AFTER_MS=a,b).
 */

const dir = mkdtempSync(join(tmpdir(), 'heed-crash-load-'));
const config = ['--config', fixtureConfig('crash.config.ts')];
const env = { HEED_CRASH_DIR: dir, HEED_CRASH_TOOL_MS: '20' };
const lines = (name: string) =>
  existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean) : [];
const WORKERS = 12;

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** Conversations that pause on an approval and are answered, over and over, until the server dies. */
function load(server: ServeProcess, answered: Set<string>, conversations: Set<string>) {
  let stopped = false;
  const worker = async () => {
    try {
      while (!stopped) {
        const { id } = (await call(server.url, 'POST', '/api/conversations', { agent: 'refunds' })).body;
        conversations.add(id);
        for (let cycle = 0; cycle < 3 && !stopped; cycle++) {
          const paused = await call(server.url, 'POST', `/api/conversations/${id}/messages`, {
            content: `refund {${id}}`,
          });
          if (paused.status !== 200) throw new Error(`send: ${paused.status} ${JSON.stringify(paused.body)}`);
          for (const action of paused.body.pendingActions ?? []) {
            const done = await call(server.url, 'POST', `/api/conversations/${id}/actions/${action.id}`, {
              resolution: { type: 'approval', decision: 'allow' },
            });
            if (done.status !== 200) throw new Error(`answer: ${done.status} ${JSON.stringify(done.body)}`);
            answered.add(action.id);
          }
        }
      }
    } catch (thrown) {
      // The connection died with the server; anything else is a real failure.
      if (!stopped && !(thrown instanceof TypeError)) throw thrown;
    }
  };
  const workers = Promise.all(Array.from({ length: WORKERS }, worker));
  return { stop: () => ((stopped = true), workers) };
}

describe('crash safety under load', () => {
  it(
    'killed twice at random moments while many conversations pause and resume: nothing lost, nothing done twice',
    { timeout: 60_000 },
    async () => {
      const given = process.env.HEED_KILL_AFTER_MS?.split(',').map(Number);
      const killAfter = given ?? [300 + Math.floor(Math.random() * 900), 300 + Math.floor(Math.random() * 900)];
      const answered = new Set<string>();
      const conversations = new Set<string>();
      let server = await startServe(config, env);
      for (const after of killAfter) {
        const running = load(server, answered, conversations);
        // fixed wait kept: the kill moment is the scenario (random, printed so a failure can be replayed)
        await new Promise((resolve) => setTimeout(resolve, after));
        expect(await server.stop('SIGKILL')).toBe('SIGKILL');
        await running.stop();
        const db = new Database(join(dir, 'heed.db'));
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        db.close();
        server = await startServe(config, env);
      }

      // After the last restart: taken-over turns finish; then answer whatever is still open.
      for (const id of conversations) {
        for (let waited = 0; ; waited += 25) {
          const snapshot = (await call(server.url, 'GET', `/api/conversations/${id}`)).body;
          if (snapshot.runtime.status === 'requires_action') {
            for (const actionId of snapshot.runtime.pendingActionIds) {
              await call(server.url, 'POST', `/api/conversations/${id}/actions/${actionId}`, {
                resolution: { type: 'approval', decision: 'allow' },
              });
            }
            continue;
          }
          if (snapshot.runtime.status === 'idle') break;
          if (waited > 10_000)
            throw new Error(`conversation ${id} is stuck running (kills after ${killAfter.join(', ')} ms)`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
      expect(await server.stop('SIGTERM')).toBe(0);

      const store = sqliteStore({ path: join(dir, 'heed.db') });
      const effects = new Map<string, number>();
      for (const line of lines('effects.log'))
        effects.set(line.split(' ')[0], (effects.get(line.split(' ')[0]) ?? 0) + 1);
      const runs = new Map<string, number>();
      for (const key of lines('runs.log')) runs.set(key, (runs.get(key) ?? 0) + 1);
      let approved = 0;
      for (const id of conversations) {
        expect([id, await conversationProblems(store, id)]).toEqual([id, []]);
        for (const action of await store.listActions(id)) {
          if (answered.has(action.id))
            expect([action.id, action.status, action.resolvedBy]).toEqual([action.id, 'resolved', 'ada']);
          if (action.status !== 'resolved') continue;
          approved++;
          // Approved calls had their effect exactly once, however many runs the kills cost.
          expect([action.toolCallId, effects.get(action.toolCallId)]).toEqual([action.toolCallId, 1]);
          expect(runs.get(action.toolCallId)).toBeLessThanOrEqual(1 + killAfter.length);
        }
      }
      await store.close();
      expect([...effects.values()].every((count) => count === 1)).toBe(true);
      const rerun = [...runs.values()].filter((count) => count > 1).length;
      console.log(
        `crash under load: ${WORKERS} clients, kills after ${killAfter.join(' and ')} ms; ${conversations.size} conversations, ` +
          `${answered.size} answers that got a 2xx (all kept), ${approved} approved calls each with one effect, ${rerun} call(s) run again after a kill`,
      );
    },
  );
});
