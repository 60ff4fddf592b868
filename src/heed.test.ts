import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHeed, sqliteStore, type EventRecord } from 'heed';
import { refundAgent, testHeed } from '../test/kit.js';

const folders: string[] = [];
function tempDb() {
  const folder = mkdtempSync(join(tmpdir(), 'heed-'));
  folders.push(folder);
  return join(folder, 'heed.db');
}
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('createHeed', () => {
  it('a pause written by one instance is answered by a new instance on the same SQLite file', async () => {
    const path = tempDb();
    const first = refundAgent();
    const before = createHeed({ agents: [first.agent], store: sqliteStore({ path }), sweepIntervalMs: 0 });
    const { id } = await before.createConversation({ agent: 'support', ownerId: 'alice' });
    const paused = await before.conversation(id).send('refund order 42');
    await before.close();

    const second = refundAgent();
    const after = createHeed({ agents: [second.agent], store: sqliteStore({ path }), sweepIntervalMs: 0 });
    const [pending] = await after.conversation(id).pendingActions({ caller: { userId: 'alice' } });
    expect(pending.id).toBe(paused.pendingActions![0].id);
    const done = await pending.approve();
    expect(done.status).toBe('completed');
    expect(second.runs).toEqual([{ orderId: 42, amount: 5, key: pending.toolCallId }]);
    // The resumed model was sent the whole stored history: the user's words, its own call and the result.
    const sent = JSON.stringify(second.model.calls[0].messages);
    expect(sent).toContain('refund order 42');
    expect(sent).toContain(pending.toolCallId);
    expect(sent).toContain('"refunded":5');
    const seqs = (await after.conversation(id).events()).map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    await after.close();
  });

  it('lists agents with their capabilities', async () => {
    const heed = testHeed([refundAgent().agent]);
    expect(heed.agents()).toEqual([
      { name: 'support', capabilities: { toolApproval: true, questions: false, intake: false, clientTools: false } },
    ]);
    await heed.close();
  });

  it('follow delivers the stored backlog, then live events, each once and in order', async () => {
    const { agent } = refundAgent();
    const heed = testHeed([agent]);
    const { id } = await heed.createConversation({ agent: 'support' });
    const chat = heed.conversation(id);
    await chat.send('refund');
    const seen: EventRecord[] = [];
    const follow = await chat.follow((event) => seen.push(event), { after: 2 });
    const [pending] = await chat.pendingActions();
    await pending.approve();
    // The follower has had the last event of the log (read after it, below, to compare).
    const last = (await chat.events()).at(-1)!.seq;
    await expect.poll(() => seen.at(-1)?.seq).toBe(last);
    follow.close();
    const all = await chat.events();
    expect(seen.map((event) => event.seq)).toEqual(all.slice(2).map((event) => event.seq));
    expect(seen.at(-1)!.type).toBe('turn.completed');
    await heed.close();
  });

  it('lists the inbox across conversations, oldest first, only the caller’s', async () => {
    const heed = testHeed([refundAgent().agent]);
    const ids: string[] = [];
    for (const owner of ['alice', 'bob', 'alice']) {
      const { id } = await heed.createConversation({ agent: 'support', ownerId: owner });
      await heed.conversation(id).send('refund');
      ids.push(id);
    }
    const inbox = await heed.inbox({ caller: { userId: 'alice' } });
    expect(inbox.map((action) => action.conversationId)).toEqual([ids[0], ids[2]]);
    expect(await heed.inbox({ caller: { userId: null } })).toEqual([]);
    await heed.close();
  });

  it('branches a conversation into a new private one where open requests arrive closed', async () => {
    const heed = testHeed([refundAgent().agent]);
    const { id } = await heed.createConversation({ agent: 'support', ownerId: 'alice' });
    await heed.conversation(id).send('refund');
    const branch = await heed.conversation(id).branch({ caller: { userId: 'alice' } });
    expect(branch.id).not.toBe(id);
    expect(branch.metadata).toMatchObject({ branchedFrom: id });
    const copied = await heed.conversation(branch.id).get();
    expect(copied.pendingActions).toBeUndefined();
    expect(copied.messages.at(-1)!.parts[0]).toMatchObject({ type: 'tool-result', output: { type: 'error-text' } });
    // The original still waits.
    expect(await heed.conversation(id).pendingActions()).toHaveLength(1);
    await heed.close();
  });
});
