/**
 * The OpenAI Agents adapter's two calls, made directly on a real `@openai/agents` agent whose model is
 * scripted (the SDK's `Model` interface, no network): tool approvals become Heed approvals, answers run the
 * agent on from its stored RunState once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, setTracingDisabled, tool, type ModelRequest } from '@openai/agents';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { memoryStore } from '../../store/memory/memory-store.js';
import { sqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import type { ActionRecord, ConversationRecord, MessageRecord, StoredResolution } from '../../types.js';
import type { AgentHandler } from '../handler-types.js';
import { openaiAgent } from './openai-agent.js';
import {
  assistantText,
  functionCall,
  scriptedOpenAIModel,
  type ScriptedOutput,
} from '../../../test/fixtures/openai-agents-model.js';

/** A support agent whose `refund` tool needs approval; `refunds` records what actually ran. */
function supportAgent(script: ScriptedOutput[][], refunds: unknown[], requests: ModelRequest[] = []) {
  const refund = tool({
    name: 'refund',
    description: 'Refund an order',
    parameters: z.object({ orderId: z.string(), amount: z.number() }),
    needsApproval: true,
    execute: (args) => {
      refunds.push(args);
      return `Refunded ${args.amount} on ${args.orderId}`;
    },
  });
  return new Agent({
    name: 'support',
    instructions: 'Help.',
    model: scriptedOpenAIModel(script, requests),
    tools: [refund],
  });
}

const conversation = (id: string) => ({ id }) as ConversationRecord;
const message = (text: string) => ({ id: 'm1', role: 'user', parts: [{ type: 'text', text }] }) as MessageRecord;
const signal = new AbortController().signal;

function send(handler: AgentHandler, store: Store, id: string, text: string) {
  return handler.processMessage({
    conversation: conversation(id),
    message: message(text),
    signal,
    idempotencyKey: 'm1',
    values: store,
  });
}

function answer(
  handler: AgentHandler,
  store: Store,
  id: string,
  journalIndex: number,
  resolution: StoredResolution,
  key = 'a1',
) {
  return handler.resolveAction!({
    conversation: conversation(id),
    action: { id: key, journalIndex } as ActionRecord,
    resolution,
    signal,
    idempotencyKey: key,
    values: store,
  });
}

describe('openaiAgent', () => {
  beforeAll(() => setTracingDisabled(true));
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'heed-openai-agents-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a tool that needs approval becomes an approval with the parsed arguments; an allow runs it once and the run goes on', async () => {
    const store = memoryStore();
    const refunds: unknown[] = [];
    const { handler } = openaiAgent({
      name: 'support',
      agent: supportAgent(
        [[functionCall('refund', { orderId: '1042', amount: 30 })], [assistantText('Done: refunded.')]],
        refunds,
      ),
    });
    expect(await send(handler, store, 'c1', 'refund 1042')).toEqual({
      pendingActions: [
        { kind: 'approval', title: 'Run refund?', toolName: 'refund', args: { orderId: '1042', amount: 30 } },
      ],
    });
    expect(refunds).toEqual([]);
    expect(await answer(handler, store, 'c1', 0, { type: 'approval', decision: 'allow' })).toEqual({
      content: 'Done: refunded.',
    });
    expect(refunds).toEqual([{ orderId: '1042', amount: 30 }]);
    // A retry of the same call gets the same reply; the tool does not run twice.
    expect(await answer(handler, store, 'c1', 0, { type: 'approval', decision: 'allow' })).toEqual({
      content: 'Done: refunded.',
    });
    expect(refunds).toHaveLength(1);
  });

  it('a deny rejects the call with the comment as the message the model reads', async () => {
    const store = memoryStore();
    const refunds: unknown[] = [];
    const requests: ModelRequest[] = [];
    const { handler } = openaiAgent({
      name: 'support',
      agent: supportAgent(
        [[functionCall('refund', { orderId: '7', amount: 900 })], [assistantText('I will not refund it.')]],
        refunds,
        requests,
      ),
    });
    await send(handler, store, 'c2', 'refund 7');
    expect(
      await answer(handler, store, 'c2', 0, { type: 'approval', decision: 'deny', comment: 'Too much: ask finance.' }),
    ).toEqual({ content: 'I will not refund it.' });
    expect(refunds).toEqual([]);
    expect(JSON.stringify(requests[1].input)).toContain('Too much: ask finance.');
  });

  it('a pause survives a restart: a new agent on the same SQLite file goes on from the stored RunState', async () => {
    const path = join(dir, 'heed.db');
    const first = sqliteStore({ path });
    await first.migrate();
    const before = openaiAgent({
      name: 'support',
      agent: supportAgent([[functionCall('refund', { orderId: '9', amount: 5 })]], []),
    });
    await send(before.handler, first, 'c3', 'refund 9');
    await first.close();

    const second = sqliteStore({ path });
    await second.migrate();
    const refunds: unknown[] = [];
    const after = openaiAgent({
      name: 'support',
      agent: supportAgent([[assistantText('Refunded after the restart.')]], refunds),
    });
    expect(await answer(after.handler, second, 'c3', 0, { type: 'approval', decision: 'allow' })).toEqual({
      content: 'Refunded after the restart.',
    });
    expect(refunds).toEqual([{ orderId: '9', amount: 5 }]);
    await second.close();
  });

  it('keeps the conversation: the next message is sent with the history of the last run', async () => {
    const store = memoryStore();
    const requests: ModelRequest[] = [];
    const { handler } = openaiAgent({
      name: 'support',
      agent: supportAgent([[assistantText('Hi Ana.')], [assistantText('Your name is Ana.')]], [], requests),
    });
    expect(await send(handler, store, 'c4', 'I am Ana')).toEqual({ content: 'Hi Ana.' });
    expect(await send(handler, store, 'c4', 'Who am I?')).toEqual({ content: 'Your name is Ana.' });
    expect(JSON.stringify(requests[1].input)).toContain('I am Ana');
  });
});
