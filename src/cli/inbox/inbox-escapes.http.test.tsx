import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { InboxApp } from './app.js';

// A caller names a person as assignee of a request whose text carries terminal escape sequences; the
// person's inbox, reading over a real socket, prints the words and none of the sequences.
const ESC = '\u001B';
const BEL = '\u0007';
const hostile =
  `Deploy ${ESC}]8;;https://evil.example${BEL}click${ESC}]8;;${BEL} now` +
  `${ESC}]0;pwned${BEL}${ESC}]52;c;aGk=${BEL}${ESC}[2J${ESC}[31m red\u009B2J\u0085`;
/** ESC, BEL, CSI/OSC/C1 bytes and the other controls a terminal acts on (newline and tab aside). */
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
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
      throw new Error(`Timed out waiting for ${wanted}; the screen shows:\n${JSON.stringify(frame)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('heed inbox: text from the server', () => {
  it('prints no escape sequence or control character from a title or arguments', async () => {
    const made = await server.api('POST', '/api/requests', {
      token: 'bob',
      body: {
        request: { kind: 'approval', title: hostile, args: { [`note${ESC}]0;key${BEL}`]: hostile } },
        assignees: ['ada'],
      },
    });
    expect(made.status).toBe(201);
    expect(made.body.title).toBe(hostile);

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
      await until(app.lastFrame, 'Deploy click now');
      app.stdin.write('\r');
      const opened = await until(app.lastFrame, 'a allow · d deny');
      expect(opened).toContain('"note": "Deploy click now red');
      for (const frame of app.frames) expect(frame).not.toMatch(CONTROLS);
    } finally {
      app.unmount();
    }
  });
});
