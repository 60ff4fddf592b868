import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';

/**
 * `hitl.lapseMessage` over real HTTP: what the model reads when nobody answered in time is the configured
 * sentence (the agent's over the server's), never that the user denied it; the record keeps the lapse.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

describe('hitl.lapseMessage', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function refundAgent(name: string, lapseMessage?: string) {
    const model = scriptedModel(
      ({ messages }) =>
        messages.at(-1)?.role === 'tool'
          ? { text: 'Noted.' }
          : { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 1, amount: 5 } }] },
      { keepCalls: Infinity },
    );
    const agent = {
      name,
      model,
      hitl: { timeoutMinutes: 5, ...(lapseMessage ? { lapseMessage } : {}) },
      tools: {
        issue_refund: tool({
          inputSchema: z.object({ orderId: z.number(), amount: z.number() }),
          needsApproval: true,
          execute: async () => ({ refunded: true }),
        }),
      },
    };
    return { agent, model };
  }

  /** What the model read for the refund call after its approval lapsed. */
  function toolResultText(model: ReturnType<typeof refundAgent>['model']): string {
    const last = model.calls.at(-1)!.messages.at(-1) as Any;
    expect(last.role).toBe('tool');
    return JSON.stringify(last.content);
  }

  it("reads the agent's sentence, else the server's, never a denial; the record keeps a lapse", async () => {
    let now = new Date('2026-03-01T09:00:00Z');
    const own = refundAgent('own', 'Billing did not reply in time; tell the customer we will follow up.');
    const server_ = refundAgent('server');
    server = await startServer({
      agents: [own.agent, server_.agent],
      hitl: { lapseMessage: 'No one approved this in time; do not retry it.' },
      now: () => now,
    });
    const ids: string[] = [];
    for (const agent of ['own', 'server']) {
      const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent } })).body as Any;
      await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'refund' } });
      ids.push(id);
    }
    now = new Date('2026-03-01T09:06:00Z');
    expect((await server.heed.expireDue()).lapsed).toBe(2);

    expect(toolResultText(own.model)).toContain('Billing did not reply in time; tell the customer we will follow up.');
    expect(toolResultText(server_.model)).toContain('No one approved this in time; do not retry it.');
    for (const model of [own.model, server_.model]) expect(toolResultText(model)).not.toMatch(/denied/i);
    const actions = await server.api('GET', `/api/conversations/${ids[0]}/actions`, { token: 'ada' });
    expect((actions.body as Any).actions[0]).toMatchObject({ status: 'expired', channel: 'timeout' });
  });

  it('refuses an empty sentence when the server starts', async () => {
    await expect(startServer({ hitl: { lapseMessage: '' } })).rejects.toThrow(/lapseMessage/);
  });
});
