import { render } from 'ink-testing-library';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { InboxApp } from './app.js';
import { firstReadSentence } from './run.js';
import type { InboxSystem } from './system.js';

// The terminal inbox against a real server on loopback; keys go in through Ink's stdin.
const KEY = { up: '\u001B[A', down: '\u001B[B', enter: '\r', escape: '\u001B' };
let server: TestServer;
let mounted: Array<{ unmount(): void }> = [];

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  for (const app of mounted) app.unmount();
  mounted = [];
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

/** Starts a conversation as `token` and sends a message that pauses it; returns the pending action. */
async function pause(content: string, token = 'ada'): Promise<{ conversationId: string; actionId: string }> {
  const conversation = await server.api('POST', '/api/conversations', { body: { agent: 'support' }, token });
  const sent = await server.api('POST', `/api/conversations/${conversation.body.id}/messages`, {
    body: { content },
    token,
  });
  expect(sent.body.status).toBe('requires_action');
  return { conversationId: conversation.body.id, actionId: sent.body.pendingActions[0].id };
}

async function clearInbox(token = 'ada') {
  const inbox = await server.api('GET', '/api/inbox?limit=200', { token });
  for (const action of inbox.body.actions)
    await server.api('POST', `/api/conversations/${action.conversationId}/cancel`, { token });
}

const system: InboxSystem = { openUrl: async () => false };

function mount(token: string | null = 'ada', intervalMs = 150) {
  const client = createClient({ baseUrl: server.url, ...(token ? { token } : {}) });
  const app = render(
    <InboxApp
      client={client}
      server={server.url}
      anonymous={!token}
      system={system}
      color={false}
      intervalMs={intervalMs}
    />,
  );
  mounted.push(app);
  return app;
}

describe('heed inbox: the list', () => {
  it('lists what waits, oldest first, with kind, agent, title or first question, age and time left', async () => {
    await clearInbox();
    await pause('refund please');
    await pause('ask me');
    const app = mount();
    const frame = await until(app.lastFrame, /Question\s+support/);
    expect(frame).toContain('2 waiting');
    const lines = frame.split('\n');
    const approval = lines.findIndex((line) => line.includes('Approval'));
    const question = lines.findIndex((line) => line.includes('Question'));
    expect(approval).toBeGreaterThan(0);
    expect(question).toBeGreaterThan(approval);
    expect(lines[approval]).toMatch(/› Approval\s+support\s+Run issue_refund\?\s+\d+s ago/);
    expect(lines[question]).toMatch(/Question\s+support\s+Which size\? \(\+1 more\)\s+\d+s ago\s+\d+h left/);
  });

  it('↑/↓ and j/k move the cursor; Enter opens; Esc goes back', async () => {
    await clearInbox();
    await pause('refund please');
    await pause('ask me');
    const app = mount();
    await until(app.lastFrame, /Question\s+support/);
    app.stdin.write(KEY.down);
    await until(app.lastFrame, /› Question/);
    app.stdin.write('k');
    await until(app.lastFrame, /› Approval/);
    app.stdin.write('j');
    await until(app.lastFrame, /› Question/);
    app.stdin.write(KEY.up);
    await until(app.lastFrame, /› Approval/);
    app.stdin.write(KEY.enter);
    await until(app.lastFrame, 'a allow · d deny');
    // The opened view takes keys once its effects have run, which can follow its first frame on a loaded
    // machine: Esc is pressed again until the list is back (Esc on the list with no filter does nothing).
    for (let tries = 0; ; tries++) {
      app.stdin.write(KEY.escape);
      const back = await until(app.lastFrame, 'Heed inbox', 500).catch(() => undefined);
      if (back) break;
      if (tries === 9) await until(app.lastFrame, 'Heed inbox', 0);
    }
  });

  it('stays live: new requests appear, and one answered elsewhere is marked with who answered and what', async () => {
    await clearInbox();
    const app = mount();
    await until(app.lastFrame, 'Nothing is waiting on you');
    const first = await pause('refund please');
    await until(app.lastFrame, 'Run issue_refund?');
    await server.api('POST', `/api/conversations/${first.conversationId}/actions/${first.actionId}`, {
      body: { resolution: { type: 'approval', decision: 'deny', comment: 'not today' } },
      token: 'ada',
    });
    const frame = await until(app.lastFrame, '× ada: denied ("not today")');
    expect(frame).toContain('0 waiting');
  });

  it('follows GET /api/inbox/stream: a new request and an answer elsewhere show up without waiting for the poll', async () => {
    await clearInbox();
    const app = mount('ada', 600_000);
    await until(app.lastFrame, 'Nothing is waiting on you');
    const target = await pause('refund please');
    await until(app.lastFrame, 'Run issue_refund?');
    await server.api('POST', `/api/conversations/${target.conversationId}/actions/${target.actionId}`, {
      body: { resolution: { type: 'approval', decision: 'allow' } },
      token: 'ada',
    });
    await until(app.lastFrame, '× ada: allowed');
  });

  it('an anonymous caller is told why the list is empty', async () => {
    const app = mount(null);
    await until(app.lastFrame, 'Nothing waits on an anonymous caller');
  });

  it('fits 80 columns: no line is wider than the terminal', async () => {
    await clearInbox();
    await pause('refund please');
    const app = mount();
    const frame = await until(app.lastFrame, 'Run issue_refund?');
    // ink-testing-library's terminal is 100 columns wide.
    for (const line of frame.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(100);
  });

  it('a wrong token or address is one sentence', async () => {
    const wrongToken = await createClient({ baseUrl: server.url, token: 'nope' })
      .inbox()
      .catch((thrown: unknown) => firstReadSentence(thrown, server.url, true));
    expect(wrongToken).toBe(
      `The server at ${server.url} does not know that token (401 unauthorized). Check --token or HEED_TOKEN.`,
    );
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const nowhere = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((resolve) => probe.close(resolve));
    const refused = await createClient({ baseUrl: nowhere })
      .inbox()
      .catch((thrown: unknown) => firstReadSentence(thrown, nowhere, false));
    expect(refused).toBe(`Could not reach a Heed server at ${nowhere}. Nothing answered there (connection refused).`);
  });
});
