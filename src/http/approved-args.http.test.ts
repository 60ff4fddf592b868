import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import type { AgentConfig, HeedConfig } from '../config.js';
import { memoryStore } from '../store/memory/memory-store.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';

/**
 * Edited arguments, over real HTTP on loopback: `ctx.approve({ title, args, argsSchema })` checks the
 * person's edit against the schema it gave and hands the tool what was approved; an edit with a key the
 * tool's schema does not have is refused by name; `hitl.validateApprovedArgs` and
 * `hitl.allowRememberApproval` (server and agent) switch the checks and remembering off (seed 002).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const transferSchema = z.object({ account: z.string().min(3), amount: z.number().positive().max(1000) });
const transferJsonSchema = {
  type: 'object',
  properties: {
    account: { type: 'string', minLength: 3 },
    amount: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
  },
  required: ['account', 'amount'],
  additionalProperties: false,
};

/** "transfer" → a tool asking ctx.approve with a zod argsSchema; "wire" → with a JSON Schema; "refund" → a needsApproval tool. */
function argsAgent(name = 'edits', extra: Partial<AgentConfig> = {}) {
  const heard: unknown[] = [];
  const refunds: unknown[] = [];
  const model = scriptedModel(
    ({ messages }) => {
      const last = messages.at(-1);
      if (last?.role === 'tool') return { text: 'Done.' };
      const text =
        last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
      if (text.includes('transfer'))
        return { toolCalls: [{ toolName: 'transfer', input: { account: 'acme', amount: 300 } }] };
      if (text.includes('wire')) return { toolCalls: [{ toolName: 'wire', input: { account: 'acme', amount: 300 } }] };
      if (text.includes('refund'))
        return { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 30 } }] };
      return { text: 'Hello.' };
    },
    { keepCalls: Infinity },
  );
  const agent: AgentConfig = {
    name,
    model,
    tools: {
      transfer: tool({
        inputSchema: z.object({ account: z.string(), amount: z.number() }),
        execute: async (input, ctx) => {
          const outcome = await ctx.approve({
            title: `Send $${input.amount} to ${input.account}?`,
            args: input,
            argsSchema: transferSchema,
          });
          heard.push(outcome);
          return outcome.approved ? { sent: outcome.args } : { sent: null };
        },
      }),
      wire: tool({
        inputSchema: z.object({ account: z.string(), amount: z.number() }),
        execute: async (input, ctx) => {
          const outcome = await ctx.approve({ title: 'Wire?', args: input, argsSchema: transferJsonSchema });
          heard.push(outcome);
          return outcome.approved ? { sent: outcome.args } : { sent: null };
        },
      }),
      issue_refund: tool({
        inputSchema: z.object({ orderId: z.number().int(), amount: z.number().positive().max(100) }),
        needsApproval: true,
        execute: async (input) => {
          refunds.push(input);
          return { refunded: input.amount };
        },
      }),
    },
    ...extra,
  };
  return { agent, model, heard, refunds };
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(config: Partial<HeedConfig> = {}, agentExtra: Partial<AgentConfig> = {}) {
  const kit = argsAgent('edits', agentExtra);
  const server = await startServer({ agents: [kit.agent], ...config });
  servers.push(server);
  const ask = async (content: string, agent = 'edits') => {
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } });
    expect(sent.body.status).toBe('requires_action');
    return { id: id as string, action: sent.body.pendingActions[0] };
  };
  const approve = (id: string, actionId: string, fields: Record<string, unknown>) =>
    server.api('POST', `/api/conversations/${id}/actions/${actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow', ...fields } },
    });
  const actions = async (id: string) =>
    (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions as Any[];
  return { ...kit, server, ask, approve, actions };
}

describe('ctx.approve with an argsSchema', () => {
  for (const [content, label] of [
    ['transfer', 'a zod schema'],
    ['wire', 'a JSON Schema'],
  ] as const) {
    it(`checks the edited arguments against ${label} (400 naming the field, still pending) and returns { approved, args }`, async () => {
      const { ask, approve, actions, heard } = await start();
      const { id, action } = await ask(content);
      // The card can offer the arguments for editing, checked against the schema the tool gave.
      expect(action).toMatchObject({
        kind: 'approval',
        args: { account: 'acme', amount: 300 },
        argsSchema: { type: 'object', properties: { amount: { type: 'number' } } },
      });

      const wrong = await approve(id, action.id, { approvedArgs: { account: 'acme', amount: 'not-a-number' } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.code).toBe('invalid_approved_args');
      expect(wrong.body.error.details.field).toBe('amount');
      expect(wrong.body.error.message).toContain('amount');
      const tooMuch = await approve(id, action.id, { approvedArgs: { account: 'acme', amount: 5000 } });
      expect(tooMuch.status).toBe(400);
      expect(tooMuch.body.error.details.field).toBe('amount');
      const sneaky = await approve(id, action.id, { approvedArgs: { account: 'acme', amount: 20, sneaky: true } });
      expect(sneaky.status).toBe(400);
      expect(sneaky.body.error).toMatchObject({ code: 'invalid_approved_args', details: { field: 'sneaky' } });
      expect((await actions(id))[0].status).toBe('pending');
      expect(heard).toEqual([]);

      const done = await approve(id, action.id, { approvedArgs: { account: 'acme', amount: 20 } });
      expect(done.status).toBe(200);
      expect(done.body.status).toBe('completed');
      expect(heard).toEqual([{ approved: true, args: { account: 'acme', amount: 20 } }]);
      expect((await actions(id))[0].resolution).toEqual({
        type: 'approval',
        decision: 'allow',
        approvedArgs: { account: 'acme', amount: 20 },
      });
    });
  }

  it('without an edit the tool gets the arguments it asked about; a deny gets approved: false with the comment', async () => {
    const { ask, approve, server, heard } = await start();
    const first = await ask('transfer');
    await approve(first.id, first.action.id, {});
    const second = await ask('transfer');
    await server.api('POST', `/api/conversations/${second.id}/actions/${second.action.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'deny', comment: 'not this month' } },
    });
    expect(heard).toEqual([
      { approved: true, args: { account: 'acme', amount: 300 } },
      { approved: false, args: { account: 'acme', amount: 300 }, comment: 'not this month' },
    ]);
    // The tool ran and returned after its own approval was denied: a useChat client shows its output, not a denied call.
    const chat = await server.api('GET', `/api/ai-sdk/chat/edits/${second.id}/messages`, { token: 'ada' });
    expect(chat.body.messages.at(-1).parts.find((part: Any) => part.type === 'tool-transfer')).toMatchObject({
      state: 'output-available',
      output: { sent: null },
    });
  });
});

describe('an edit with a key the tool’s schema does not have', () => {
  it('is refused with 400 `invalid_approved_args` naming the key, the approval still pending and the tool not run', async () => {
    const { ask, approve, actions, refunds } = await start();
    const { id, action } = await ask('refund');
    const sneaky = await approve(id, action.id, { approvedArgs: { orderId: 42, amount: 20, sneaky: true } });
    expect(sneaky.status).toBe(400);
    expect(sneaky.body.error.code).toBe('invalid_approved_args');
    expect(sneaky.body.error.details.field).toBe('sneaky');
    expect(sneaky.body.error.message).toContain('"sneaky"');
    expect((await actions(id))[0]).toMatchObject({ status: 'pending' });
    expect(refunds).toEqual([]);

    const done = await approve(id, action.id, { approvedArgs: { orderId: 42, amount: 20 } });
    expect(done.body.status).toBe('completed');
    expect(refunds).toEqual([{ orderId: 42, amount: 20 }]);
  });
});

describe('hitl.validateApprovedArgs', () => {
  it('false on the server takes the edit unchecked; a tool that cannot take it fails with an error the model reads instead of running the original', async () => {
    const { ask, approve, actions, refunds, model } = await start({ hitl: { validateApprovedArgs: false } });
    const { id, action } = await ask('refund');
    const done = await approve(id, action.id, { approvedArgs: { orderId: 42, amount: 'twenty' } });
    expect(done.status).toBe(200);
    expect((await actions(id))[0].resolution).toMatchObject({ approvedArgs: { orderId: 42, amount: 'twenty' } });
    expect(refunds).toEqual([]);
    const read = model.calls
      .at(-1)!
      .messages.flatMap((message) => (message.role === 'tool' ? message.content : [])) as Any[];
    expect(read.at(-1).output.type).toBe('error-text');
    expect(read.at(-1).output.value).toMatch(/approved arguments/i);
  });

  it('an agent’s own true wins over the server’s false', async () => {
    const { ask, approve } = await start(
      { hitl: { validateApprovedArgs: false } },
      { hitl: { validateApprovedArgs: true } },
    );
    const { id, action } = await ask('refund');
    const wrong = await approve(id, action.id, { approvedArgs: { orderId: 42, amount: 'twenty' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('invalid_approved_args');
  });
});

describe('hitl.allowRememberApproval', () => {
  it('false: the approval says it cannot be remembered, and remember: true is refused', async () => {
    const { ask, approve, actions } = await start({ hitl: { allowRememberApproval: false } });
    const { id, action } = await ask('refund');
    expect(action.canRemember).toBe(false);
    const refused = await approve(id, action.id, { remember: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_resolution', details: { field: 'remember' } });
    expect((await actions(id))[0].status).toBe('pending');
  });

  it('turned off after a tool was remembered: the memory no longer lets calls through', async () => {
    const store = memoryStore();
    const before = await start({ store });
    const { id, action } = await before.ask('refund');
    expect((await before.approve(id, action.id, { remember: true })).body.status).toBe('completed');
    await before.server.close();
    servers.splice(servers.indexOf(before.server), 1);

    const after = await start({ store, hitl: { allowRememberApproval: false } });
    const again = await after.server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'refund again' },
    });
    expect(again.body.status).toBe('requires_action');
    expect(again.body.pendingActions[0]).toMatchObject({ kind: 'approval', canRemember: false });
    expect(after.refunds).toEqual([]);
  });

  it('an agent may turn it off while the server allows it; with it on, remembering works as before', async () => {
    const off = await start({}, { hitl: { allowRememberApproval: false } });
    expect((await off.ask('refund')).action.canRemember).toBe(false);

    const on = await start();
    const { id, action } = await on.ask('refund');
    expect(action.canRemember).toBe(true);
    const done = await on.approve(id, action.id, { remember: true });
    expect(done.body.status).toBe('completed');
    const again = await on.server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'refund again' },
    });
    expect(again.body.status).toBe('completed');
    expect(on.refunds).toHaveLength(2);
  });
});
