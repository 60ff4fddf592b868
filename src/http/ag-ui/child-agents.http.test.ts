/**
 * Agents that call agents over AG-UI, with the real `@ag-ui/client` HttpAgent on loopback: the lead's run ends
 * with an interrupt for its child's approval, named by the lead's own call, and a resume on the lead's thread
 * answers it there, once; the lead then goes on. The same resume again is a replay; another answer is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aguiAgent, expectWellFormed, run, say, streamedCalls, streamedText } from '../../../test/ag-ui-fixtures.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { leadOps } from '../../../test/fixtures/lead-ops.js';

const restarts: string[] = [];

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ agents: leadOps({ restarts }) });
});
afterAll(async () => {
  await server.close();
});

describe('AG-UI and a child agent', () => {
  it("the lead's run ends with the child's approval as its interrupt, and a resume on the lead's thread answers it once", async () => {
    const agent = aguiAgent(server, { agent: 'lead', token: 'ada' });
    const first = await say(agent, 'Restart web, please.');
    expectWellFormed(first);
    expect(first.interrupts).toHaveLength(1);
    const [interrupt] = first.interrupts;
    // Named by the lead's call the client was streamed, and shown as the ops agent asks it.
    expect(streamedCalls(first).get(interrupt.toolCallId!)?.name).toBe('agent_ops');
    const heed = (interrupt.metadata as { heed: { toolName: string; action: { via: Array<{ agent: string }> } } }).heed;
    expect(heed.toolName).toBe('restart');
    expect(heed.action.via).toEqual([{ agent: 'ops', conversationId: expect.any(String) }]);
    const parent = (await server.api('GET', `/api/conversations/${agent.threadId}`, { token: 'ada' })).body;
    expect(parent.pendingActions.map((entry: { id: string }) => entry.id)).toEqual([interrupt.id]);

    const second = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
    });
    expectWellFormed(second);
    expect(second.thrown).toBeUndefined();
    // The run streams the lead's continuation: its call's result (the child's reply), then its own reply.
    expect(second.events).toContainEqual(
      expect.objectContaining({
        type: 'TOOL_CALL_RESULT',
        toolCallId: interrupt.toolCallId,
        content: 'Restarted web.',
      }),
    );
    expect(streamedText(second)).toBe('Done: Restarted web.');
    expect(second.finished?.outcome).toEqual({ type: 'success' });
    expect(agent.pendingInterrupts).toEqual([]);
    expect(restarts).toEqual(['web']);

    // Answered: the same resume again (a client's retry) is a replay, as for the thread's own interrupt: the
    // run finishes without running anything again.
    const resume = [{ interruptId: interrupt.id, status: 'resolved' as const, payload: { approved: true } }];
    const again = await run(agent, { resume });
    expectWellFormed(again);
    expect(again.error).toBeUndefined();
    expect(again.finished?.outcome).toEqual({ type: 'success' });
    expect(again.types).not.toContain('TOOL_CALL_RESULT');
    expect(restarts).toEqual(['web']);
    // Another answer is refused, saying who gave the first.
    const changed = await run(agent, { resume: [{ ...resume[0], payload: { approved: false } }] });
    expect(changed.error).toMatchObject({ code: 'action_not_pending' });
    expect(changed.error!.message).toContain('already answered by ada (Allowed)');
    expect(restarts).toEqual(['web']);
  });
});
