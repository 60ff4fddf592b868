import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { memoryStore } from '../store/memory/memory-store.js';

/**
 * A pause too large to store (seed 002): the turn finishes with a `pause_state_too_large` warning, kept on
 * the message's metadata so a reloaded client (another tab, after a restart) still sees why nothing waits.
 */

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('pause_state_too_large', () => {
  it('is on the turn’s answer and, after a reload and a restart, on the message that records the call that did not run', async () => {
    const store = memoryStore();
    const first = await startServer({ store, limits: { maxStateBytes: 200 } });
    servers.push(first);
    const { id } = (await first.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body;
    const sent = await first.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'refund please' },
    });
    expect(sent.body.status).toBe('completed');
    expect(sent.body.warnings).toMatchObject([{ code: 'pause_state_too_large' }]);
    expect(first.ran.get('issue_refund')).toBeUndefined();
    await first.close();
    servers.pop();

    const second = await startServer({ store, limits: { maxStateBytes: 200 } });
    servers.push(second);
    const reloaded = await second.api('GET', `/api/conversations/${id}`, { token: 'ada' });
    expect(reloaded.body.pendingActions).toBeUndefined();
    const warned = reloaded.body.messages.filter(
      (message: { metadata?: { warnings?: unknown[] } }) => message.metadata?.warnings,
    );
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({
      role: 'tool',
      parts: [
        {
          type: 'tool-result',
          toolName: 'issue_refund',
          output: { type: 'error-text', value: 'Not run: the request was too large to store.' },
        },
      ],
      metadata: {
        warnings: [{ code: 'pause_state_too_large', message: sent.body.warnings[0].message, details: { limit: 200 } }],
      },
    });
  });
});
