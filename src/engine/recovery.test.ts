import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHeed, memoryStore, tool, type AgentConfig } from 'heed';
import { scriptedModel } from 'heed/testing';

describe('a continuation whose process died', () => {
  it('is taken over after its lease lapses and resumes from the last stored step, with the same idempotency key', async () => {
    const store = memoryStore();
    const keys: string[] = [];
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));

    const agent = (hang: boolean): AgentConfig => ({
      name: 'payments',
      model: scriptedModel(({ stepIndex }) =>
        stepIndex === 0 ? { toolCalls: [{ toolName: 'charge', input: { cents: 500 } }] } : { text: 'Charged.' },
      ),
      tools: {
        charge: tool({
          inputSchema: z.object({ cents: z.number() }),
          needsApproval: true,
          execute: async (_input, ctx) => {
            keys.push(ctx.idempotencyKey);
            if (hang) await stuck;
            return { charged: true };
          },
        }),
      },
    });

    // Instance A: its clock is an hour behind, so the lease it keeps renewing is already lapsed for B.
    const past = new Date('2026-05-01T10:00:00Z');
    const a = createHeed({ agents: [agent(true)], store, sweepIntervalMs: 0, leaseMs: 60, now: () => past });
    const { id } = await a.createConversation({ agent: 'payments' });
    const paused = await a.conversation(id).send('charge me');
    const approving = a.conversation(id).resolve(paused.pendingActions![0].id, { type: 'approval', decision: 'allow' });
    // A's tool has started (and hangs).
    await expect.poll(() => keys).toHaveLength(1);

    const b = createHeed({
      agents: [agent(false)],
      store,
      sweepIntervalMs: 0,
      now: () => new Date('2026-05-01T11:00:00Z'),
    });
    const report = await b.expireDue();
    expect(report.recovered).toBe(1);
    expect(report.turns.map((turn) => turn.status)).toEqual(['completed']);
    expect(keys).toEqual([paused.pendingActions![0].toolCallId, paused.pendingActions![0].toolCallId]);

    // A's tool finally returns: its claim is gone, so nothing it computed is written. Its caller is told
    // what became of the turn where it went on (B completed it), not that it was cancelled.
    release();
    const fromA = await approving;
    expect(fromA.status).toBe('completed');
    expect(fromA.warnings).toEqual([expect.objectContaining({ code: 'turn_moved' })]);
    expect(fromA.messages.at(-1)!.parts).toEqual([{ type: 'text', text: 'Charged.' }]);
    const messages = (await b.conversation(id).get()).messages;
    expect(messages.filter((message) => message.role === 'tool')).toHaveLength(1);
    expect(messages.at(-1)!.parts).toEqual([{ type: 'text', text: 'Charged.' }]);
    const started = (await b.conversation(id).events())
      .filter((event) => event.type === 'turn.started')
      .map((event) => event.data.trigger);
    expect(started).toEqual(['message', 'answer', 'recovery']);
    await a.close();
    await b.close();
  });

  it('asks the intake questions first when the turn it takes over had written nothing after the message', async () => {
    const store = memoryStore();
    let release!: () => void;
    const hung = new Promise<{ text: string }>((resolve) => (release = () => resolve({ text: 'Too late.' })));
    const intake = {
      questions: [{ id: 'team', header: 'Team', prompt: 'Which team?', input: { type: 'text' as const } }],
    };
    // Instance A stands for a process that died after storing the message and before asking anything:
    // its model never answers, so nothing after the user's message is ever written.
    const past = new Date('2026-05-01T10:00:00Z');
    const hungModel = scriptedModel(() => hung);
    const a = createHeed({
      agents: [{ name: 'desk', model: hungModel }],
      store,
      sweepIntervalMs: 0,
      leaseMs: 60,
      now: () => past,
    });
    const { id } = await a.createConversation({ agent: 'desk' });
    // A's turn ends only once its model answers (after B took over); B's outcome is checked.
    const fromA = a
      .conversation(id)
      .send('help me')
      .catch(() => undefined);
    // A has stored the message and waits on its model.
    await expect.poll(() => hungModel.callCount).toBe(1);

    const model = scriptedModel(() => ({ text: 'On it.' }));
    const b = createHeed({
      agents: [{ name: 'desk', model, intake }],
      store,
      sweepIntervalMs: 0,
      now: () => new Date('2026-05-01T11:00:00Z'),
    });
    const report = await b.expireDue();
    expect(report.recovered).toBe(1);
    expect(report.turns.map((turn) => turn.status)).toEqual(['requires_action']);
    expect(model.calls).toHaveLength(0);
    const pending = (await b.conversation(id).get()).pendingActions;
    expect(pending?.map((action) => action.toolName)).toEqual([expect.stringContaining('intake')]);
    release(); // A's model answers at last: its claim is gone, so its reply is not written
    await fromA;
    expect((await b.conversation(id).get()).messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    await b.close();
    await a.close();
  });
});
