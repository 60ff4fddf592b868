import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { leadOps } from '../../../test/fixtures/lead-ops.js';
import { InboxApp } from './app.js';

// The terminal inbox and agents that call agents, against a real server on loopback: a child's approval is
// listed as its parent's (the lead's conversation), and answering it there continues both, once.

const restarts: string[] = [];

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ agents: leadOps({ restarts }) });
});
afterAll(async () => {
  await server.close();
});

async function until(read: () => string | undefined, wanted: string, timeoutMs = 5000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const frame = read() ?? '';
    if (frame.includes(wanted)) return frame;
    if (Date.now() - started > timeoutMs)
      throw new Error(`Timed out waiting for ${wanted}; the screen shows:\n${frame}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('heed inbox: a child agent’s request', () => {
  it("is listed under the lead, and a allows it once: the child's tool runs and the lead goes on", async () => {
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'lead' } })).body;
    await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'Restart web' } });
    const app = render(
      <InboxApp
        client={createClient({ baseUrl: server.url, token: 'ada' })}
        server={server.url}
        anonymous={false}
        system={{ openUrl: async () => false }}
        color={false}
        intervalMs={150}
      />,
    );
    try {
      await until(app.lastFrame, 'Run restart?');
      app.stdin.write('\r');
      // Shown as the lead's request: the agent a person asked, not the child's conversation.
      expect(await until(app.lastFrame, ' · asked ')).toContain('Approval · lead · restart · asked');
      // fixed wait kept: nothing outside Ink shows that the view listens for keys yet (as inbox-answer.http.test.tsx)
      await new Promise((resolve) => setTimeout(resolve, 50));
      app.stdin.write('a');
      await until(app.lastFrame, '✓ you: allowed');
    } finally {
      app.unmount();
    }
    await expect
      .poll(
        async () => (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body.conversation.status,
      )
      .toBe('idle');
    const parent = (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body;
    expect(parent.messages.at(-1).parts[0].text).toBe('Done: Restarted web.');
    expect(restarts).toEqual(['web']);
  });
});
