import { render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { layouts, refactorer } from '../../../test/fixtures/seed-questions.js';
import { InboxApp } from './app.js';

// Seed 003's questions (their own hotkeys) and seed 002's option previews in `heed inbox`, answered with the
// keyboard alone against a real server on loopback.
const KEY = { up: '\u001B[A', down: '\u001B[B', enter: '\r' };
let server: TestServer;
let mounted: Array<{ unmount(): void }> = [];

beforeAll(async () => {
  server = await startServer({ agents: [refactorer, layouts] });
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  for (const app of mounted) app.unmount();
  mounted = [];
  const inbox = await server.api('GET', '/api/inbox?limit=200', { token: 'ada' });
  for (const action of inbox.body.actions)
    await server.api('POST', `/api/conversations/${action.conversationId}/cancel`, { token: 'ada' });
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

/** Asks the agent's intake, opens the request in the inbox; returns the stored action's reader and a key presser. */
async function open(agent: string) {
  const conversation = await server.api('POST', '/api/conversations', { body: { agent }, token: 'ada' });
  const conversationId = conversation.body.id as string;
  const sent = await server.api('POST', `/api/conversations/${conversationId}/messages`, {
    body: { content: 'start' },
    token: 'ada',
  });
  const actionId = sent.body.pendingActions[0].id as string;
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
  mounted.push(app);
  await until(app.lastFrame, agent);
  app.stdin.write(KEY.enter);
  await until(app.lastFrame, ' · asked ');
  // The view listens for keys once it has drawn (Ink subscribes in an effect).
  // fixed wait kept: nothing outside Ink shows that subscription; a key written before it would be lost
  await new Promise((resolve) => setTimeout(resolve, 50));
  const press = async (keys: string, next: string | RegExp) => {
    app.stdin.write(keys);
    return until(app.lastFrame, next);
  };
  const stored = async () =>
    (await server.api('GET', `/api/conversations/${conversationId}/actions`, { token: 'ada' })).body.actions.find(
      (action: { id: string }) => action.id === actionId,
    );
  return { app, press, stored };
}

describe('heed inbox: options with hotkeys and previews', () => {
  it("shows each option's own hotkey (a, b) and picks with it; the header is made from the id", async () => {
    const { app, press, stored } = await open('refactorer');
    const frame = await until(app.lastFrame, 'Question 1 of 2 — Scope');
    expect(frame).toContain('a  ( ) This file');
    expect(frame).toContain('b  (•) The whole module');
    expect(frame).toContain('s skip · x dismiss');
    await press('a', 'a  (•) This file');
    await press(KEY.enter, 'Question 2 of 2 — Tests');
    await press(KEY.enter, '✓ you: answered');
    expect((await stored()).resolution).toEqual({ type: 'question', answers: { scope: ['file'], tests: ['unit'] } });
  });

  it("shows the preview of the option under the cursor as written; an option's s is that option, S skips", async () => {
    const { app, press, stored } = await open('layouts');
    // The pre-picked option's sketch, line by line.
    let frame = await until(app.lastFrame, 'Preview of Sidebar:');
    expect(frame).toContain(
      '  │ ┌──────────┬────────────────┐\n  │ │ General <│ Name [ Acme ]  │\n  │ │ Billing  │ Plan [ Pro v ] │',
    );
    expect(frame).toContain('S skip · x dismiss');
    frame = await press(KEY.up, 'Preview of Tabs:');
    expect(frame).toContain('  │ ┌ General ┬ Billing ┬ Team ┐');
    expect(frame).not.toContain('Preview of Sidebar:');
    // `s` is the Sidebar option's own key here: it picks it and does not skip.
    frame = await press('o', '› o  (•) One long page');
    expect(frame).toContain('  │ Billing');
    frame = await press('s', '› s  (•) Sidebar');
    expect(frame).toContain('Preview of Sidebar:');
    await press('o', '› o  (•) One long page');
    await press(KEY.enter, 'Question 2 of 2 — Density');
    expect(await until(app.lastFrame, 'Preview of Comfortable:')).toContain('  │ Row height 48 px');
    expect(app.lastFrame()).toContain('s skip · x dismiss');
    await press(KEY.enter, '✓ you: answered');
    expect((await stored()).resolution).toEqual({
      type: 'question',
      answers: { layout: ['single'], density: ['comfortable'] },
    });
  });

  it('S skips when an option holds s', async () => {
    const { press, stored } = await open('layouts');
    await press('S', '✓ you: skipped');
    expect((await stored()).resolution).toMatchObject({ type: 'question', skip: true });
  });
});
