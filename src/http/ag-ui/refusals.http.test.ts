/**
 * What an AG-UI run refuses, over loopback with the real `@ag-ui/client` HttpAgent: each refusal is a
 * RUN_ERROR with a stable code and a readable message, and nothing is consumed (the actions still wait).
 * A replayed resume finishes without running anything again; one racing the console's answer settles once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aguiAgent, expectWellFormed, run, say, streamedText } from '../../../test/ag-ui-fixtures.js';
import { z } from 'zod';
import { gate, startServer, supportAgent, type TestServer } from '../../../test/http-fixtures.js';
import { scriptedModel } from '../../testing/scripted-model.js';
import { tool } from '../../tool.js';

let server: TestServer;
let clock = Date.now();
/** `gated`'s tool: it says when it starts, and finishes when the test opens `release`. */
let started = gate();
let release = gate();
beforeAll(async () => {
  const ran = new Map<string, number>();
  const gated = {
    name: 'gated',
    model: scriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool' ? { text: 'Shipped.' } : { toolCalls: [{ toolName: 'ship', input: {} }] },
    ),
    tools: {
      ship: tool({
        inputSchema: z.object({}),
        needsApproval: true,
        execute: async () => {
          started.open();
          await release.opened;
          return { shipped: true };
        },
      }),
    },
  };
  server = await startServer({ agents: [supportAgent(ran), gated], now: () => new Date(clock) });
  server.ran = ran;
});
afterAll(async () => {
  await server.close();
});

const ran = () => server.ran.get('issue_refund') ?? 0;

async function statuses(threadId: string): Promise<string[]> {
  const actions = await server.api('GET', `/api/conversations/${threadId}/actions`, { token: 'ada' });
  return actions.body.actions.map((action: { status: string }) => action.status);
}

/** A thread paused on one approval (or two, for "twice"). */
async function paused(text = 'refund') {
  const agent = aguiAgent(server, { token: 'ada' });
  const first = await say(agent, text);
  expect(first.interrupts.length).toBeGreaterThan(0);
  // A second client on the same thread holds no interrupts of its own, so it sends what it is told to.
  const other = aguiAgent(server, { token: 'ada', threadId: agent.threadId });
  return { agent, other, interrupts: first.interrupts };
}

describe('AG-UI refusals', () => {
  it('answers a body that is not a RunAgentInput with 400 and a readable sentence', async () => {
    const response = await server.api('POST', '/api/ag-ui/support', {
      token: 'ada',
      body: { threadId: 'x', runId: 'r', messages: [{ id: 'm', role: 'user' }] },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('messages'),
    });
    const badId = await server.api('POST', '/api/ag-ui/support', {
      token: 'ada',
      body: { threadId: 'no spaces', runId: 'r', messages: [] },
    });
    expect(badId.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('threadId') });
  });

  it('refuses a bad resume payload and consumes nothing; a good one then runs the tool once', async () => {
    const { agent, interrupts } = await paused();
    const before = ran();
    const bad = await run(agent, {
      resume: [{ interruptId: interrupts[0].id, status: 'resolved', payload: { approved: 'yes' } }],
    });
    expectWellFormed(bad);
    expect(bad.error).toMatchObject({ code: 'invalid_resolution' });
    expect(bad.error!.message).toMatch(/decision/);
    expect(await statuses(agent.threadId)).toEqual(['pending']);
    expect(ran()).toBe(before);

    const good = await run(aguiAgent(server, { token: 'ada', threadId: agent.threadId }), {
      resume: [{ interruptId: interrupts[0].id, status: 'resolved', payload: { approved: true } }],
    });
    expect(good.error).toBeUndefined();
    expect(ran()).toBe(before + 1);
  });

  it('refuses a resume that leaves an open interrupt unanswered', async () => {
    const { other, interrupts } = await paused('refund twice');
    const partial = await run(other, {
      resume: [{ interruptId: interrupts[0].id, status: 'resolved', payload: { approved: true } }],
    });
    expect(partial.error).toMatchObject({ code: 'action_pending', message: expect.stringContaining(interrupts[1].id) });
    expect(await statuses(other.threadId)).toEqual(['pending', 'pending']);
  });

  it('refuses new input while interrupts are open, recording no message', async () => {
    const { other } = await paused();
    const before = await server.api('GET', `/api/conversations/${other.threadId}`, { token: 'ada' });
    const sent = await say(other, 'something else');
    expectWellFormed(sent);
    expect(sent.error).toMatchObject({ code: 'action_pending', message: expect.stringContaining('resume') });
    const after = await server.api('GET', `/api/conversations/${other.threadId}`, { token: 'ada' });
    expect(after.body.messages).toHaveLength(before.body.messages.length);
  });

  it('refuses an interrupt past its expiresAt', async () => {
    const { other, interrupts } = await paused();
    const saved = clock;
    clock = Date.parse(interrupts[0].expiresAt!) + 1000;
    try {
      const late = await run(other, {
        resume: [{ interruptId: interrupts[0].id, status: 'resolved', payload: { approved: true } }],
      });
      expect(late.error).toMatchObject({ code: 'action_expired', message: expect.stringContaining('expired') });
    } finally {
      clock = saved;
    }
    expect(await statuses(other.threadId)).toEqual(['pending']);
  });

  it("refuses a caller who may not answer: someone else's thread is not found", async () => {
    const { agent, interrupts } = await paused();
    const bob = aguiAgent(server, { token: 'bob', threadId: agent.threadId });
    const refused = await run(bob, {
      resume: [{ interruptId: interrupts[0].id, status: 'resolved', payload: { approved: true } }],
    });
    expect(refused.error).toMatchObject({ code: 'not_found' });
    expect(await statuses(agent.threadId)).toEqual(['pending']);
  });

  it("refuses an interrupt of another thread (a forged id), and another user's message on the thread", async () => {
    const mine = await paused();
    const theirs = await paused();
    const forged = await run(mine.other, {
      resume: [
        { interruptId: mine.interrupts[0].id, status: 'cancelled' },
        { interruptId: theirs.interrupts[0].id, status: 'resolved', payload: { approved: true } },
      ],
    });
    expect(forged.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining(theirs.interrupts[0].id),
    });
    expect(await statuses(mine.agent.threadId)).toEqual(['pending']);
    expect(await statuses(theirs.agent.threadId)).toEqual(['pending']);

    const bob = aguiAgent(server, { token: 'bob', threadId: mine.agent.threadId });
    const sent = await say(bob, 'hello from bob');
    expect(sent.error).toMatchObject({ code: 'not_found' });
    const thread = await server.api('GET', `/api/conversations/${mine.agent.threadId}`, { token: 'ada' });
    expect(JSON.stringify(thread.body.messages)).not.toContain('hello from bob');
  });

  it('a replayed resume finishes the run without running anything again; another answer is refused saying who gave it', async () => {
    const { agent, interrupts } = await paused();
    const resume = [{ interruptId: interrupts[0].id, status: 'resolved' as const, payload: { approved: true } }];
    await run(agent, { resume });
    const after = ran();
    const replay = await run(agent, { resume });
    expectWellFormed(replay);
    expect(replay.error).toBeUndefined();
    expect(replay.finished?.outcome).toEqual({ type: 'success' });
    expect(replay.types).not.toContain('TOOL_CALL_RESULT');
    expect(ran()).toBe(after);

    const changed = await run(agent, { resume: [{ ...resume[0], payload: { approved: false } }] });
    expect(changed.error).toMatchObject({ code: 'action_not_pending' });
    expect(changed.error!.message).toContain('already answered by ada (Allowed)');
    expect(ran()).toBe(after);
  });
});

describe('AG-UI and the console answering the same approval at once', () => {
  it('settles once; the other surface is told the outcome', async () => {
    const winners = new Set<string>();
    for (let round = 0; round < 6; round++) {
      const { other, interrupts } = await paused();
      const before = ran();
      const answer = () =>
        server.api('POST', `/api/conversations/${other.threadId}/actions/${interrupts[0].id}`, {
          token: 'ada',
          body: { resolution: { type: 'approval', decision: 'deny', comment: 'from the console' } },
        });
      const resume = [{ interruptId: interrupts[0].id, status: 'resolved' as const, payload: { approved: true } }];
      let fromConsole!: Awaited<ReturnType<typeof answer>>;
      let agUi;
      if (round % 2 === 0) {
        // Both sent at once.
        [agUi, fromConsole] = await Promise.all([run(other, { resume }), answer()]);
      } else {
        // The console answers while the AG-UI run is already under way (its stream has started).
        let answered: Promise<void> | undefined;
        agUi = await run(other, { resume }, (event) => {
          if (event.type === 'RUN_STARTED') answered = answer().then((response) => void (fromConsole = response));
        });
        await answered;
      }
      const actions = await server.api('GET', `/api/conversations/${other.threadId}/actions`, { token: 'ada' });
      const decision = actions.body.actions[0].resolution.decision;
      winners.add(decision);
      if (decision === 'allow') {
        // AG-UI won: the tool ran once and the console is told how it was settled.
        expect(agUi.error).toBeUndefined();
        expect(fromConsole.status).toBe(409);
        expect(fromConsole.body.error).toMatchObject({
          code: 'action_not_pending',
          details: { resolution: { decision: 'allow' } },
        });
        expect(ran()).toBe(before + 1);
      } else {
        // The console won: the run is refused saying who answered, and the tool never ran.
        expect(fromConsole.status).toBe(200);
        expect(agUi.error).toMatchObject({ code: 'action_not_pending' });
        expect(agUi.error!.message).toContain('already answered by ada (Denied)');
        expect(ran()).toBe(before);
      }
    }
    // Which surface wins is the race's own (both have, over these rounds, on this machine); each outcome is checked above.
    expect(winners.size).toBeGreaterThan(0);
  });

  it('the same answer from both: settled once, the tool runs once, and the AG-UI run ends with the reply', async () => {
    for (let round = 0; round < 4; round++) {
      const { other, interrupts } = await paused();
      const before = ran();
      const answer = () =>
        server.api('POST', `/api/conversations/${other.threadId}/actions/${interrupts[0].id}`, {
          token: 'ada',
          body: { resolution: { type: 'approval', decision: 'allow' } },
        });
      const resume = [{ interruptId: interrupts[0].id, status: 'resolved' as const, payload: { approved: true } }];
      let fromConsole: Awaited<ReturnType<typeof answer>> | undefined;
      let answered: Promise<void> | undefined;
      const agUi = await run(other, { resume }, (event) => {
        if (event.type === 'RUN_STARTED' && round % 2 === 1)
          answered = answer().then((response) => void (fromConsole = response));
      });
      if (round % 2 === 0) fromConsole = await answer();
      await answered;
      expectWellFormed(agUi);
      expect(agUi.error).toBeUndefined();
      expect(agUi.finished?.outcome).toEqual({ type: 'success' });
      const snapshot = agUi.events.find((event) => event.type === 'MESSAGES_SNAPSHOT') as unknown as {
        messages: Array<{ role: string; content?: string }>;
      };
      expect(snapshot.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Done.' });
      // The console's answer either won (200) or was told the same answer was already recorded (409).
      expect([200, 409]).toContain(fromConsole!.status);
      expect(ran()).toBe(before + 1);
    }
  });

  it('a resume that finds the same answer given elsewhere, its continuation still running, streams that continuation', async () => {
    started = gate();
    release = gate();
    const agent = aguiAgent(server, { agent: 'gated', token: 'ada' });
    const first = await say(agent, 'ship it');
    const [interrupt] = first.interrupts;
    // The console allows it; its continuation runs the tool, which waits.
    const fromConsole = server.api('POST', `/api/conversations/${agent.threadId}/actions/${interrupt.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    await started.opened;
    const resumed = run(
      agent,
      { resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }] },
      (event) => {
        // The run follows the continuation: let the tool finish once it has started streaming.
        if (event.type === 'RUN_STARTED') release.open();
      },
    );
    const [seen, answered] = await Promise.all([resumed, fromConsole]);
    expect(answered.status).toBe(200);
    expectWellFormed(seen);
    expect(seen.error).toBeUndefined();
    expect(seen.finished?.outcome).toEqual({ type: 'success' });
    // The run ends with the continuation's outcome: streamed as it happens when the run catches it running (the
    // usual case: the tool waits until the run has started), and in the messages snapshot either way.
    const snapshot = seen.events.find((event) => event.type === 'MESSAGES_SNAPSHOT') as unknown as {
      messages: Array<{ role: string; content?: string; toolCallId?: string }>;
    };
    expect(snapshot.messages.slice(-2)).toMatchObject([
      { role: 'tool', toolCallId: interrupt.toolCallId, content: '{"shipped":true}' },
      { role: 'assistant', content: 'Shipped.' },
    ]);
    if (seen.types.includes('TOOL_CALL_RESULT')) expect(streamedText(seen)).toBe('Shipped.');
  });
});
