import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { InboxApp } from './app.js';
import type { InboxSystem } from './system.js';

// The terminal inbox against a real server on loopback whose clock the test moves: a request that lapses
// while the inbox is open reads as lapsed, in the list and once opened, never as denied.
let now = new Date('2026-03-01T09:00:00Z');
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ now: () => now, hitl: { timeoutMinutes: 5 } });
});
afterAll(async () => {
  await server.close();
});

async function until(read: () => string | undefined, wanted: string | RegExp, timeoutMs = 5000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const frame = read() ?? '';
    if (typeof wanted === 'string' ? frame.includes(wanted) : wanted.test(frame)) return frame;
    if (Date.now() - started > timeoutMs)
      throw new Error(`Timed out waiting for ${String(wanted)}; the screen shows:\n${frame}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const system: InboxSystem = { openUrl: async () => false };

describe('heed inbox: a request that lapses', () => {
  it('is marked lapsed in the list and says "Lapsed: nobody answered in time" when opened', async () => {
    const conversation = await server.api('POST', '/api/conversations', { body: { agent: 'support' }, token: 'ada' });
    const sent = await server.api('POST', `/api/conversations/${conversation.body.id}/messages`, {
      body: { content: 'refund please' },
      token: 'ada',
    });
    expect(sent.body.status).toBe('requires_action');
    const app = render(
      <InboxApp
        client={createClient({ baseUrl: server.url, token: 'ada' })}
        server={server.url}
        anonymous={false}
        system={system}
        color={false}
        intervalMs={100}
        clock={() => now.getTime()}
      />,
    );
    try {
      await until(app.lastFrame, /› Approval\s+support\s+Run issue_refund\?/);
      now = new Date('2026-03-01T09:06:00Z');
      expect((await server.heed.expireDue()).lapsed).toBe(1);
      const list = await until(app.lastFrame, '× lapsed — Run issue_refund?');
      expect(list).toContain('0 waiting');
      app.stdin.write('\r');
      const opened = await until(app.lastFrame, 'Lapsed: nobody answered in time.');
      for (const frame of [list, opened]) expect(frame).not.toMatch(/denied/i);
    } finally {
      app.unmount();
    }
  });
});
