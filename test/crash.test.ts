import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { conversationProblems, readConversation } from './invariants.js';
import { fixtureConfig } from './cli.js';
import { call, killAll, startServe, type ServeProcess } from './serve-process.js';

/**
 * `heed serve` killed with SIGKILL at each durable step of a turn, then started again on the same
 * SQLite file (test/fixtures/crash.config.ts names the points). After each restart: the conversation
 * is paused on the same open actions or carries on from its last stored step; an answer that got a
 * 2xx is kept; each tool call's side effect happens once (its idempotency key is stable); nothing is
 * half-written. One server process per crash, the next scenario runs on the restarted one.
 */

const dir = mkdtempSync(join(tmpdir(), 'heed-crash-'));
const config = ['--config', fixtureConfig('crash.config.ts')];
const env = { HEED_CRASH_DIR: dir };
const lines = (name: string) =>
  existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean) : [];
const count = (name: string, key: string) => lines(name).filter((line) => line.split(' ')[0] === key).length;

interface Scenario {
  /** Where the process dies (see the fixture). */
  crash: string;
  /** What the user asks: one refund, two in one pause, or a tool that asks a question before its work. */
  ask: 'refund' | 'refund twice' | 'book';
  /** The request during which it dies. */
  during: 'message' | 'answer';
  /** The answer's 200 arrives before the process dies. */
  answered2xx?: boolean;
  /** Runs of the tool call (its side effect still happens once): 2 when it died before its result was stored. */
  runs: number;
}

const scenarios: Scenario[] = [
  { crash: 'model:first', ask: 'refund', during: 'message', runs: 1 },
  { crash: 'before:turn.paused', ask: 'refund', during: 'message', runs: 1 },
  { crash: 'after:turn.paused', ask: 'refund', during: 'message', runs: 1 },
  { crash: 'before:action.resolved', ask: 'refund', during: 'answer', runs: 1 },
  { crash: 'after:action.resolved', ask: 'refund', during: 'answer', runs: 1 },
  { crash: 'tool:before-effect', ask: 'refund', during: 'answer', answered2xx: true, runs: 2 },
  { crash: 'tool:after-effect', ask: 'refund', during: 'answer', answered2xx: true, runs: 2 },
  { crash: 'before:tool.result', ask: 'refund', during: 'answer', answered2xx: true, runs: 2 },
  { crash: 'after:tool.result', ask: 'refund', during: 'answer', answered2xx: true, runs: 1 },
  { crash: 'model:after-tool', ask: 'refund', during: 'answer', answered2xx: true, runs: 1 },
  { crash: 'after:text.delta', ask: 'refund', during: 'answer', answered2xx: true, runs: 1 },
  { crash: 'before:turn.completed', ask: 'refund', during: 'answer', answered2xx: true, runs: 1 },
  { crash: 'after:turn.completed', ask: 'refund', during: 'answer', answered2xx: true, runs: 1 },
  { crash: 'before:action.resolved#2', ask: 'refund twice', during: 'answer', runs: 1 },
  { crash: 'tool:after-effect', ask: 'book', during: 'answer', answered2xx: true, runs: 2 },
];

/** What the file holds right after the kill, read before anything opens it again for writing. */
async function storedNow(id: string) {
  const store = sqliteStore({ path: join(dir, 'heed.db') });
  try {
    return await readConversation(store, id);
  } finally {
    await store.close();
  }
}

function integrity(): string {
  const db = new Database(join(dir, 'heed.db'));
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

/** Waits until no turn runs in the conversation (a taken-over continuation has finished). */
async function settled(server: ServeProcess, id: string) {
  for (let waited = 0; ; waited += 25) {
    const snapshot = (await call(server.url, 'GET', `/api/conversations/${id}`)).body;
    if (snapshot.runtime.status !== 'running') return snapshot;
    if (waited > 10_000) throw new Error(`conversation ${id} is still running:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The answer as a stream: true once the 200 arrived (the answer is then recorded), false if the connection died first. */
async function answer(
  url: string,
  id: string,
  actionId: string,
  resolution: unknown,
  onStatus: () => void,
): Promise<boolean> {
  try {
    const response = await fetch(`${url}/api/conversations/${id}/actions/${actionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer token-ada' },
      body: JSON.stringify({ resolution, stream: true }),
    });
    if (response.status !== 200) throw new Error(`answer refused: ${response.status} ${await response.text()}`);
    onStatus();
    await response.text().catch(() => undefined);
    return true;
  } catch (thrown) {
    if (thrown instanceof Error && thrown.message.startsWith('answer refused')) throw thrown;
    return false;
  }
}

const resolutionFor = (ask: Scenario['ask']) =>
  ask === 'book' ? { type: 'question', answers: { Day: '2031-01-02' } } : { type: 'approval', decision: 'allow' };

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('crash safety: SIGKILL at each step of a turn, then a restart on the same SQLite file', () => {
  it(
    'every scenario ends as if the crash had not happened, with each side effect once',
    // A deadline, not a wait: a kill and a restart of `heed serve` per scenario, on two cores that may be busy.
    { timeout: scenarios.length * 20_000 },
    async () => {
      let server = await startServe(config, env);
      const done: string[] = [];
      const report: string[] = [];
      for (const scenario of scenarios) {
        const label = `${scenario.ask} / ${scenario.crash}`;
        const { id } = (
          await call(server.url, 'POST', '/api/conversations', {
            agent: 'refunds',
            metadata: { crash: scenario.crash, gated: scenario.answered2xx === true },
          })
        ).body;
        const content = `${scenario.ask} {${id}}`;
        let pausedOn: string[] = [];
        let got2xx = false;
        const died = server.exited;

        if (scenario.during === 'message') {
          const sent = await call(server.url, 'POST', `/api/conversations/${id}/messages`, { content }).catch(
            () => 'connection lost',
          );
          expect([label, sent]).toEqual([label, 'connection lost']);
        } else {
          const paused = (await call(server.url, 'POST', `/api/conversations/${id}/messages`, { content })).body;
          expect([label, paused.status]).toEqual([label, 'requires_action']);
          pausedOn = paused.pendingActions.map((action: { id: string }) => action.id);
          const [first, second] = pausedOn;
          if (second) {
            // The first of two answers gets its 2xx; the process dies while recording the second.
            const kept = await call(server.url, 'POST', `/api/conversations/${id}/actions/${first}`, {
              resolution: resolutionFor(scenario.ask),
            });
            expect([label, kept.status, kept.body.status]).toEqual([label, 200, 'requires_action']);
          }
          got2xx = await answer(server.url, id, second ?? first, resolutionFor(scenario.ask), () =>
            writeFileSync(join(dir, `release.${id}`), ''),
          );
          expect([label, got2xx]).toEqual([label, scenario.answered2xx === true]);
        }
        expect([label, await died]).toEqual([label, 'SIGKILL']);
        expect([label, integrity()]).toEqual([label, 'ok']);
        const atDeath = await storedNow(id);
        const openAtDeath = atDeath!.actions.filter((action) => action.status === 'pending').map((action) => action.id);
        if (scenario.crash === 'after:text.delta') {
          // It died with the first words of the reply in the log and the reply itself not stored.
          const cut = atDeath!.events.filter(
            (event) =>
              event.type === 'text.delta' && !atDeath!.messages.some((message) => message.id === event.data.messageId),
          );
          expect(cut.map((event) => event.data.delta)).toEqual(['Refunded. ']);
        }

        server = await startServe(config, env);
        let snapshot = await settled(server, id);
        if (snapshot.runtime.status === 'requires_action') {
          // Paused: on the very actions that were open when it died (or, if it died before the pause was
          // stored, on the one the taken-over turn asked again).
          if (openAtDeath.length > 0) expect([label, snapshot.runtime.pendingActionIds]).toEqual([label, openAtDeath]);
          else
            expect([label, atDeath!.conversation.status, snapshot.runtime.pendingActionIds.length]).toEqual([
              label,
              'running',
              1,
            ]);
          for (const actionId of snapshot.runtime.pendingActionIds) {
            const answered = await call(server.url, 'POST', `/api/conversations/${id}/actions/${actionId}`, {
              resolution: resolutionFor(scenario.ask),
            });
            expect([label, answered.status]).toEqual([label, 200]);
          }
          snapshot = await settled(server, id);
        }
        expect([label, snapshot.runtime.status]).toEqual([label, 'idle']);
        // Whole replies only: a reply cut short by the kill was produced again, never shown in part.
        expect([label, snapshot.messages.at(-1).parts]).toEqual([
          label,
          [{ type: 'text', text: scenario.ask === 'book' ? 'Booked. Anything else?' : 'Refunded. Anything else?' }],
        ]);

        // No answer that got a 2xx was lost: the first of two, and a streamed one, are still the recorded ones.
        const actions = (await call(server.url, 'GET', `/api/conversations/${id}/actions`)).body.actions as Array<{
          id: string;
          status: string;
          resolvedAt: string;
          toolCallId: string;
        }>;
        for (const kept of atDeath!.actions.filter((action) => action.status === 'resolved')) {
          expect([label, actions.find((action) => action.id === kept.id)]).toMatchObject([
            label,
            { status: 'resolved', resolvedAt: kept.resolvedAt },
          ]);
        }
        if (got2xx) expect([label, actions.every((action) => action.status === 'resolved')]).toEqual([label, true]);

        // Each tool call ran as often as expected and had its effect exactly once.
        const calls = [...new Set(actions.map((action) => action.toolCallId))];
        expect(calls.length).toBe(scenario.ask === 'refund twice' ? 2 : 1);
        for (const toolCallId of calls) {
          expect([label, toolCallId, count('effects.log', toolCallId)]).toEqual([label, toolCallId, 1]);
          expect([label, toolCallId, count('runs.log', toolCallId)]).toEqual([label, toolCallId, scenario.runs]);
        }
        if (scenario.ask === 'book')
          expect(lines('effects.log').find((line) => line.startsWith(calls[0]))).toBe(
            `${calls[0]} book:room:2031-01-02`,
          );
        done.push(id);
        report.push(
          `${label}: died during the ${scenario.during}${got2xx ? ' after its 200' : ''}; after restart ${openAtDeath.length ? 'paused on the same actions' : 'carried on'}; runs ${scenario.runs}, effects 1`,
        );
      }

      // Every conversation so far is whole, after all those restarts; no side effect happened twice.
      const store = sqliteStore({ path: join(dir, 'heed.db') });
      for (const id of done) expect(await conversationProblems(store, id)).toEqual([]);
      await store.close();
      const keys = lines('effects.log').map((line) => line.split(' ')[0]);
      expect(new Set(keys).size).toBe(keys.length);
      expect(lines('fired.log')).toHaveLength(scenarios.length);
      expect(await server.stop('SIGTERM')).toBe(0);
      console.log(
        `crash points (${scenarios.length} kills, ${scenarios.length + 1} starts):\n  ${report.join('\n  ')}`,
      );
    },
  );
});
