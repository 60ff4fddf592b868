import { afterAll, describe, expect, it } from 'vitest';
import { createHeed } from '../heed.js';
import { scriptedModel } from '../testing/index.js';
import { createApp } from './app.js';

// A turn whose model call fails leaves a record a later reader finds: the failure and its sentence, on
// the conversation's last message, while the model and AI SDK chats never see it.
const model = scriptedModel(({ messages }) => {
  const last = messages.at(-1);
  const text =
    last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
  if (text.includes('break')) throw new Error('The provider is down (503).');
  return { text: 'Fine.' };
});
const heed = createHeed({ sweepIntervalMs: 0, agents: [{ name: 'flaky', model }] });
const app = createApp(heed);
afterAll(() => heed.close());

async function api(method: string, path: string, body?: unknown) {
  const response = await app.request(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('a failed turn is kept in the record', () => {
  it('on the last message (metadata.failed), in the log (message.created, turn.failed), and out of the next prompt and the AI SDK history', async () => {
    const { id } = (await api('POST', '/api/conversations', { agent: 'flaky' })).body;
    const failed = await api('POST', `/api/conversations/${id}/messages`, { content: 'please break' });
    expect(failed.body).toMatchObject({
      status: 'failed',
      error: { code: 'model_error', message: 'The provider is down (503).' },
    });

    // What a reload reads.
    const read = (await api('GET', `/api/conversations/${id}`)).body;
    expect(read.conversation.status).toBe('idle');
    expect(
      read.messages.map((message: { role: string; parts: unknown[]; metadata?: unknown }) => [
        message.role,
        message.parts.length,
        message.metadata ?? null,
      ]),
    ).toEqual([
      ['user', 1, null],
      ['assistant', 0, { failed: { code: 'model_error', message: 'The provider is down (503).' } }],
    ]);
    const events = (await api('GET', `/api/conversations/${id}/events`)).body.events.map(
      (event: { type: string; data: Record<string, unknown> }) => event,
    );
    const record = read.messages[1].id;
    expect(events.map((event: { type: string }) => event.type)).toEqual([
      'message.created',
      'turn.started',
      'message.created',
      'turn.failed',
    ]);
    expect(events[2].data).toEqual({ messageId: record, role: 'assistant', failed: true });

    // The next turn goes on as if the failure were not there: the model reads the two user messages only.
    const next = await api('POST', `/api/conversations/${id}/messages`, { content: 'try again' });
    expect(next.body.status).toBe('completed');
    const sent = model.calls.at(-1)!.messages.filter((message) => message.role !== 'system');
    expect(sent.map((message) => [message.role, (message.content as Array<{ text?: string }>)[0]?.text])).toEqual([
      ['user', 'please break'],
      ['user', 'try again'],
    ]);
    const history = (await api('GET', `/api/ai-sdk/chat/flaky/${id}/messages`)).body.messages as Array<{
      role: string;
      parts: Array<{ type: string; text?: string }>;
    }>;
    expect(
      history.map((message) => [
        message.role,
        message.parts.filter((part) => part.type === 'text').map((part) => part.text),
      ]),
    ).toEqual([
      ['user', ['please break']],
      ['user', ['try again']],
      ['assistant', ['Fine.']],
    ]);
  });
});
