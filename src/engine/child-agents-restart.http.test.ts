import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import { leadOpsApi, stoppableLeadOps } from '../../test/fixtures/lead-ops.js';
import type { AgentConfig } from '../config.js';

/**
 * Agents that call agents across restarts (SQLite): whichever process stops at whichever step, the child's
 * tool runs once and the parent goes on once.
 */

const servers: TestServer[] = [];
const dirs: string[] = [];
const { agents, releaseAll } = stoppableLeadOps();
afterEach(async () => {
  releaseAll();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function database(): string {
  const dir = mkdtempSync(join(tmpdir(), 'heed-children-'));
  dirs.push(dir);
  return join(dir, 'heed.db');
}

async function instance(path: string, list: AgentConfig[], later = false): Promise<TestServer> {
  const server = await startServer({
    agents: list,
    store: sqliteStore({ path }),
    // A later process reads the clock an hour on: the first one's leases have lapsed.
    ...(later ? { now: () => new Date(Date.now() + 3_600_000) } : {}),
  });
  servers.push(server);
  return server;
}

const { get, types, allow, lead } = leadOpsApi;

describe('agents that call agents across restarts (SQLite)', () => {
  it('a restart between the pause and the answer: a new process continues the child and then the parent', async () => {
    const path = database();
    const restarts: string[] = [];
    const first = await instance(path, agents(restarts));
    const id = await lead(first);
    const sent = await first.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'go' },
    });
    const [pending] = sent.body.pendingActions;
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    const second = await instance(path, agents(restarts));
    expect((await get(second, id)).pendingActions[0]).toMatchObject({ id: pending.id, via: [{ agent: 'ops' }] });
    expect((await allow(second, id, pending.id)).status).toBe(200);
    await expect.poll(async () => (await get(second, id)).conversation.status).toBe('idle');
    expect(restarts).toEqual(['web']);
    expect((await get(second, id)).messages.at(-1).parts[0].text).toBe('Done: Restarted web.');
  });

  it("a process that stops in the child's first turn: another takes over both, and the child still asks once", async () => {
    const path = database();
    const restarts: string[] = [];
    const first = await instance(path, agents(restarts, 'ops-first'));
    const id = await lead(first);
    void first.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'go' } });
    // The child exists and its turn is under way in the first process.
    await expect.poll(async () => (await get(first, id)).conversation.children?.length ?? 0).toBe(1);

    const second = await instance(path, agents(restarts), true);
    await second.heed.expireDue();
    await expect.poll(async () => (await get(second, id)).pendingActions?.length ?? 0).toBe(1);
    const [pending] = (await get(second, id)).pendingActions;
    expect((await allow(second, id, pending.id)).status).toBe(200);
    await expect.poll(async () => (await get(second, id)).conversation.status).toBe('idle');
    expect(restarts).toEqual(['web']);
    const log = await types(second, id);
    expect(log.filter((type) => type === 'child.started')).toHaveLength(1);
    expect(log.filter((type) => type === 'child.completed')).toHaveLength(1);
    expect(log.filter((type) => type === 'turn.completed')).toHaveLength(1);
  });

  it("a process that stops in the child's turn after the answer: another finishes the child, then the parent, once", async () => {
    const path = database();
    const restarts: string[] = [];
    const first = await instance(path, agents(restarts, 'ops-after-answer'));
    const id = await lead(first);
    const sent = await first.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'go' },
    });
    const [pending] = sent.body.pendingActions;
    void allow(first, id, pending.id);
    await expect.poll(() => restarts.length).toBe(1);
    // Stopped in the model call after the tool's result: that result is stored (the step flushes it first), so
    // the other process starts from it rather than from a call whose result is still on its way to the store.
    await expect
      .poll(async () =>
        (await get(first, pending.conversationId)).messages.some((m: { role: string }) => m.role === 'tool'),
      )
      .toBe(true);

    const second = await instance(path, agents(restarts), true);
    await second.heed.expireDue();
    await expect.poll(async () => (await get(second, id)).conversation.status).toBe('idle');
    expect(restarts).toEqual(['web']);
    expect((await get(second, id)).messages.at(-1).parts[0].text).toBe('Done: Restarted web.');
    const log = await types(second, id);
    expect(log.filter((type) => type === 'child.completed')).toHaveLength(1);
    expect(log.filter((type) => type === 'turn.completed')).toHaveLength(1);
  });

  it('the child ended where nobody told the parent: the sweep on another process goes on with the parent, once', async () => {
    const path = database();
    const restarts: string[] = [];
    const first = await instance(path, agents(restarts));
    const id = await lead(first);
    const sent = await first.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'go' },
    });
    const [pending] = sent.body.pendingActions;
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    // A process that knows only the ops agent ends the child and cannot tell the parent (as if it died first).
    const opsOnly = await instance(path, agents(restarts, undefined, 'ops'));
    expect((await allow(opsOnly, pending.conversationId, pending.id)).status).toBe(200);
    await expect.poll(async () => (await get(opsOnly, pending.conversationId)).conversation.status).toBe('idle');
    expect((await get(opsOnly, id)).conversation.status).toBe('requires_action');

    const third = await instance(path, agents(restarts), true);
    const report = await third.heed.expireDue();
    expect(report.turns.map((turn) => turn.status)).toEqual(['completed']);
    expect((await get(third, id)).messages.at(-1).parts[0].text).toBe('Done: Restarted web.');
    expect(restarts).toEqual(['web']);
    expect((await third.heed.expireDue()).turns).toEqual([]);
  });
});
