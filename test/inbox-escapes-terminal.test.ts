import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasTmux, terminal } from './terminal.js';
import { CLI, builtModule, root } from './cli.js';
import { call, killAll, startServe, type ServeProcess } from './serve-process.js';

// The attack of issue 38 (finding 7) as it lands: a caller names a person as assignee of a request whose
// title carries escape sequences (a disguised OSC 8 link, an OSC 0 window title, an OSC 52 clipboard write,
// a CSI that clears the screen and one that paints red); the person runs `heed inbox` in a real terminal
// (tmux, 80×24, which obeys all of them) and sees the words with none of the effects.
const dir = mkdtempSync(join(tmpdir(), 'heed-inbox-escapes-'));
const socket = `heed-inbox-escapes-${process.pid}`;
const { tmux, open, until } = terminal(socket, { attributes: true });
let server: ServeProcess | undefined;

afterAll(async () => {
  tmux('kill-server');
  await server?.stop();
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const ESC = '\u001B';
const BEL = '\u0007';
// The sequences come first: the list cuts a long title to its column, and they must be on screen.
const title =
  `${ESC}]0;pwned${BEL}${ESC}]52;c;aGk=${BEL}${ESC}[2J${ESC}[31m` +
  `${ESC}]8;;https://evil.example${BEL}Ship${ESC}]8;;${BEL} it`;

describe.skipIf(!hasTmux)('heed inbox in a terminal, with hostile titles', () => {
  it('shows the words of a title without its escape sequences taking effect', { timeout: 90_000 }, async () => {
    const config = join(dir, 'heed.config.mjs');
    writeFileSync(
      config,
      `import { defineConfig } from ${builtModule('index.js')};
import { demoAgents } from ${builtModule('cli/demo-agents.js')};
export default defineConfig({ agents: demoAgents({ chunkDelayMs: 0 }), auth: { tokens: { 'tok-ada': 'ada', 'tok-eve': 'eve' } } });
`,
    );
    server = await startServe(['--db', join(dir, 'inbox.db'), '--config', config]);
    // Eve, any caller with a token, targets Ada by naming her.
    const made = await call(
      server.url,
      'POST',
      '/api/requests',
      { request: { kind: 'approval', title, args: { note: title } }, assignees: ['ada'] },
      'tok-eve',
    );
    expect(made.status).toBe(201);

    const command = `env NO_COLOR=1 HEED_URL=${server.url} HEED_TOKEN=tok-ada ${process.execPath} ${CLI} inbox --interval 0.5; sleep 600`;
    open(command, root);
    // A clipboard write (OSC 52) would land in tmux's paste buffers.
    tmux('set-option', '-g', 'set-clipboard', 'on');
    const before = tmux('display-message', '-p', '-t', 'inbox', '#{pane_title}').stdout.trim();

    const list = await until('1 waiting', 60_000);
    // What the title would have made the terminal do: retitle the pane (OSC 0), fill the clipboard (OSC 52),
    // paint (CSI 31m; nothing else is painted under NO_COLOR), carry a link (OSC 8).
    expect(tmux('display-message', '-p', '-t', 'inbox', '#{pane_title}').stdout).not.toContain('pwned');
    expect(tmux('display-message', '-p', '-t', 'inbox', '#{pane_title}').stdout.trim()).toBe(before);
    expect(tmux('list-buffers').stdout).toBe('');
    expect(list).not.toMatch(/\u001B\[[0-9;]*3[1-7]m/);
    expect(list).not.toContain('evil.example');
    // And the words are all there.
    expect(list).toContain('Ship it');
    tmux('send-keys', '-t', 'inbox', 'Enter');
    const opened = await until('a allow · d deny');
    expect(opened).toContain('"note": "Ship it');
    expect(opened).not.toMatch(/\u001B\[[0-9;]*3[1-7]m/);
    expect(tmux('display-message', '-p', '-t', 'inbox', '#{pane_title}').stdout).not.toContain('pwned');
  });
});
