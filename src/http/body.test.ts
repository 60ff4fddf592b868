import { describe, expect, it } from 'vitest';
import { createHeed } from '../heed.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { createApp } from './app.js';

// Bodies without a declared length (chunked) are counted as they arrive.
describe('request bodies', () => {
  const heed = createHeed({
    agents: [{ name: 'a', model: scriptedModel(() => ({ text: 'hi' })) }],
    sweepIntervalMs: 0,
  });
  const app = createApp(heed, { maxBodyBytes: 1000 });
  const streamed = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(text);
        for (let index = 0; index < bytes.length; index += 100) controller.enqueue(bytes.slice(index, index + 100));
        controller.close();
      },
    });
  const post = (text: string) =>
    app.request('/api/conversations', {
      method: 'POST',
      body: streamed(text),
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);

  it('accepts a streamed body under the limit and refuses one over it with 413', async () => {
    expect((await post(JSON.stringify({ agent: 'a', metadata: { pad: 'x'.repeat(500) } }))).status).toBe(201);
    const refused = await post(JSON.stringify({ agent: 'a', metadata: { pad: 'x'.repeat(5000) } }));
    expect(refused.status).toBe(413);
    expect(await refused.json()).toMatchObject({ error: { code: 'payload_too_large', details: { maxBytes: 1000 } } });
  });

  it('reads an empty body as {} (zod then names what is missing)', async () => {
    const response = await app.request('/api/conversations', { method: 'POST' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'invalid_request', details: { field: 'body.agent' } },
    });
  });
});
