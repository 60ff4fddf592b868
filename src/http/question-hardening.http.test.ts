import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import type { AgentConfig } from '../config.js';
import { createHeed } from '../heed.js';
import { memoryStore } from '../store/memory/memory-store.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { MAX_ERROR_BODY_BYTES } from './error-body.js';

/**
 * Attacks on questions, over real HTTP: a pattern that makes a backtracking engine run for minutes,
 * patterns no linear-time engine can run, and answers large enough to bloat every later error body.
 */

/** What the model read back from each tool call, in order. */
const toolResults: string[] = [];

/** "ask <json>" makes the model call the ask tool with that input; after a tool result it says "Done.". */
const asker: AgentConfig = {
  name: 'asker',
  ask: true,
  model: scriptedModel(({ messages }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') {
      toolResults.push(JSON.stringify(last.content));
      return { text: 'Done.' };
    }
    const text =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    if (text.startsWith('ask ')) return { toolCalls: [{ toolName: 'ask', input: JSON.parse(text.slice(4)) }] };
    return { text: 'Hello.' };
  }),
};

const textQuestion = (id: string, input: Record<string, unknown>) => ({
  id,
  header: id,
  prompt: `What is the ${id}?`,
  input: { type: 'text', ...input },
});

describe('question patterns and answer sizes, attacked over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ agents: [asker] });
  });
  afterAll(async () => {
    await server.close();
  });

  /** Starts a conversation and sends "ask <input>"; returns the turn's answer. */
  const ask = async (input: unknown) => {
    const conversation = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'asker' } }))
      .body;
    const sent = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: `ask ${JSON.stringify(input)}` },
    });
    expect(sent.status).toBe(200);
    return { conversationId: conversation.id as string, sent };
  };
  const answer = (conversationId: string, actionId: string, answers: Record<string, unknown>) =>
    server.api('POST', `/api/conversations/${conversationId}/actions/${actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'question', answers } },
    });

  it('^(a+)+$ is matched by RE2: answers that would backtrack for minutes are refused at once, and the event loop never stalls', async () => {
    const { conversationId, sent } = await ask({ questions: [textQuestion('code', { pattern: '^(a+)+$' })] });
    expect(sent.body.status).toBe('requires_action');
    const [action] = sent.body.pendingActions;
    // Stored as asked, but not marked for the browser: a backtracking engine must never run it.
    expect(action.questions[0].input).toEqual({ type: 'text', pattern: '^(a+)+$' });

    // With a backtracking engine one of these takes about 40 s (and doubles with each extra "a"), so the
    // run would outlast the test's time limit; no clock is read here, so load on the machine cannot fail it.
    const attacks = Array.from({ length: 10 }, (_, index) =>
      answer(conversationId, action.id, { code: `${'a'.repeat(30 + index)}!` }),
    );
    const health = server.api('GET', '/health');
    const [results, healthy] = await Promise.all([Promise.all(attacks), health]);

    expect(healthy.status).toBe(200);
    for (const result of results) {
      expect(result.status).toBe(400);
      expect(result.body.error.code).toBe('invalid_resolution');
      expect(result.body.error.message).toMatch(/^"code" must match the pattern \^\(a\+\)\+\$; "a+!" does not\.$/);
    }

    // The same pattern still takes a right answer.
    const accepted = await answer(conversationId, action.id, { code: 'a'.repeat(50) });
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('completed');
  });

  it('a pattern RE2 cannot run (lookaround, backreference, a huge repeat) goes back to the model as a tool error; nobody is parked', async () => {
    const before = toolResults.length;
    const { conversationId, sent } = await ask({
      questions: [
        textQuestion('first', { pattern: '(?=a)a+' }),
        textQuestion('second', { pattern: '(a)\\1' }),
        textQuestion('third', { pattern: '[a-z]{0,1000}'.repeat(30) }),
      ],
    });
    expect(sent.body.status).toBe('completed');
    expect(sent.body.pendingActions).toBeUndefined();
    const read = toolResults.slice(before).join('\n');
    expect(read).toContain('The questions were not asked');
    expect(read).toContain('lookaround');
    expect(read).toContain('backreference');
    expect(read).toContain('at most 1000 are allowed');
    const actions = await server.api('GET', `/api/conversations/${conversationId}/actions`, { token: 'ada' });
    expect(actions.body.actions).toEqual([]);
  });

  it('marks in the view the patterns a browser may run as the person types', async () => {
    const { sent } = await ask({
      questions: [
        textQuestion('code', { pattern: '[A-Z]{3}-\\d{4}' }),
        textQuestion('pair', { pattern: '\\d+\\d+\\d+' }),
      ],
    });
    const [action] = sent.body.pendingActions;
    expect(action.questions[0].input).toEqual({ type: 'text', pattern: '[A-Z]{3}-\\d{4}', patternBacktrackSafe: true });
    // Three open repeats in a row: about 400 ms in V8 on 1,000 digits, so left to the server.
    expect(action.questions[1].input).toEqual({ type: 'text', pattern: '\\d+\\d+\\d+' });
    // A model cannot mark a pattern itself: the mark it sends is dropped.
    const forged = await ask({ questions: [textQuestion('code', { pattern: '(a+)+', patternBacktrackSafe: true })] });
    expect(forged.sent.body.pendingActions[0].questions[0].input).toEqual({ type: 'text', pattern: '(a+)+' });
  });

  it('a 900 KB answer is refused with 400 and a short readable sentence; nothing is stored', async () => {
    const { conversationId, sent } = await ask({ questions: [textQuestion('notes', {})] });
    const [action] = sent.body.pendingActions;
    const huge = await answer(conversationId, action.id, { notes: 'x'.repeat(900_000) });
    expect(huge.status).toBe(400);
    expect(huge.body.error.code).toBe('invalid_resolution');
    expect(huge.body.error.message).toBe('"notes" must be at most 10000 characters long.');
    expect(huge.text.length).toBeLessThan(2000);
    const pending = await server.api('GET', `/api/conversations/${conversationId}/actions`, { token: 'ada' });
    expect(pending.body.actions[0].status).toBe('pending');

    // Free text besides options is capped the same way, and an answer checked against a pattern at 1,000.
    const more = await ask({
      questions: [
        { id: 'size', header: 'size', prompt: 'Which size?', options: [{ label: 'Small' }], defaults: ['Small'] },
        textQuestion('code', { pattern: '[a-z]+' }),
      ],
    });
    const [second] = more.sent.body.pendingActions;
    const custom = await answer(more.conversationId, second.id, { size: 'y'.repeat(10_001) });
    expect(custom.body.error.message).toBe('"size" must be at most 10000 characters long.');
    const coded = await answer(more.conversationId, second.id, { code: 'a'.repeat(1001) });
    expect(coded.body.error.message).toBe(
      '"code" must be at most 1000 characters long, as it is checked against a pattern.',
    );
  });

  it('a 409 that repeats a long stored answer stays under 16 KiB and says what it shortened', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const { conversationId, sent } = await ask({ questions: ids.map((id) => textQuestion(id, {})) });
    const [action] = sent.body.pendingActions;
    const long = Object.fromEntries(ids.map((id) => [id, id.repeat(10_000)]));
    expect((await answer(conversationId, action.id, long)).status).toBe(200);

    const late = await answer(conversationId, action.id, long);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('action_not_pending');
    expect(Buffer.byteLength(late.text)).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    expect(late.body.error.details.truncated).toMatch(/shortened to keep this answer under 16 KiB/);
    expect(late.text).toContain('more characters not shown');
  });
});

describe('intake questions with a pattern RE2 cannot run', () => {
  it('stop the start with invalid_config naming the problem', () => {
    const agent: AgentConfig = {
      name: 'intake',
      model: scriptedModel(() => ({ text: 'Hi.' })),
      intake: {
        questions: [{ id: 'code', header: 'code', prompt: 'Code?', input: { type: 'text', pattern: '(?<!x)y' } }],
      },
    };
    expect(() => createHeed({ agents: [agent], store: memoryStore(), sweepIntervalMs: 0 })).toThrow(/lookaround/);
  });
});
