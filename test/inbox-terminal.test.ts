import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, killAll, startServe, type ServeProcess } from './serve-process.js';

// `heed inbox` as a person uses it: the real command in a real pseudo-terminal (tmux, 80×24), against a
// real `heed serve`, answered by keystrokes alone; the answers are then read back over HTTP.
const root = join(import.meta.dirname, '..');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'heed-inbox-'));
const socket = `heed-inbox-${process.pid}`;
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
let server: ServeProcess | undefined;

afterAll(async () => {
  tmux('kill-server');
  await server?.stop();
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** The screen as text, the way a person sees it. */
const screen = () => tmux('capture-pane', '-p', '-t', 'inbox').stdout;

async function until(wanted: string | RegExp, timeoutMs = 10_000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const text = screen();
    if (typeof wanted === 'string' ? text.includes(wanted) : wanted.test(text)) return text;
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${String(wanted)}; the screen shows:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Presses keys one at a time, as a person types (tmux key names such as Enter, Escape, or literal text). */
async function press(...keys: string[]): Promise<void> {
  for (const key of keys) {
    const named = /^(Enter|Escape|BSpace|Up|Down|Left|Right|Space)$/.test(key);
    tmux('send-keys', '-t', 'inbox', ...(named ? [key] : ['-l', key]));
    await new Promise((resolve) => setTimeout(resolve, 60));
  }
}

function inbox(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'inbox', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
}

describe.skipIf(!hasTmux)('heed inbox in a terminal', () => {
  it('answers a typed question and an approval by keystrokes; the answers are stored', { timeout: 90_000 }, async () => {
    const config = join(dir, 'heed.config.mts');
    writeFileSync(
      config,
      `import { defineConfig } from ${JSON.stringify(join(root, 'src/index.ts'))};
import { demoAgents } from ${JSON.stringify(join(root, 'src/cli/demo-agents.ts'))};
export default defineConfig({ agents: demoAgents({ chunkDelayMs: 0 }), auth: { tokens: { 'tok-ada': 'ada' } } });
`,
    );
    server = await startServe(['--db', join(dir, 'inbox.db'), '--config', config]);
    const conversation = await call(server.url, 'POST', '/api/conversations', { agent: 'helpdesk' }, 'tok-ada');
    const id = conversation.body.id as string;
    expect((await call(server.url, 'POST', `/api/conversations/${id}/messages`, { content: 'hello' }, 'tok-ada')).body.status).toBe('requires_action');

    // A wrong token is one sentence and a non-zero exit; --json prints the list for scripts.
    const refused = inbox(['--url', server.url, '--token', 'wrong']);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe(`heed inbox: The server at ${server.url} does not know that token (401 unauthorized). Check --token or HEED_TOKEN.`);
    const listed = inbox(['--json'], { HEED_URL: server.url, HEED_TOKEN: 'tok-ada' });
    expect(listed.status).toBe(0);
    const lines = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toMatchObject([{ kind: 'question', toolName: 'intake', agent: 'helpdesk', conversationId: id }]);

    const command = `env -u EDITOR -u VISUAL HEED_URL=${server.url} HEED_TOKEN=tok-ada ${process.execPath} --import tsx src/cli/main.ts inbox --interval 0.5; echo "exited with $?"; sleep 600`;
    expect(tmux('new-session', '-d', '-s', 'inbox', '-x', '80', '-y', '24', '-c', root, command).status).toBe(0);

    await until('What do you need help with? (+1 more)');
    await press('Enter');
    await until('Question 1 of 2 — Topic');
    await press('2');
    await until('(•) Something is broken');
    await press('Enter');
    await until('Question 2 of 2 — Email');
    await press('ada@example', 'Enter');
    await until('✗ "Email" must be an email address');
    await press('.com');
    await until('ada@example.com▏');
    await press('Enter');
    await until('✓ you: answered (Topic: Something is broken; Email: ad');

    // A new request arrives while the inbox is open: the list picks it up by itself.
    const sent = await call(server.url, 'POST', `/api/conversations/${id}/messages`, { content: 'refund order 42 for $5' }, 'tok-ada');
    expect(sent.body.status).toBe('requires_action');
    await until('Refund $5 on order 42?');
    await press('j', 'Enter');
    await until('a allow · d deny · e edit · r remember · Esc back');
    await press('e', 'j', 'Enter', '3', 'Enter');
    await until(/amount\s+3/);
    await press('Escape');
    const approval = await until('Arguments (edited):');
    expect(approval).toContain('"amount": 3,');
    for (const line of approval.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    await press('a');
    await until('✓ you: allowed with edited arguments');
    await press('q');
    await until('exited with 0');

    const actions = (await call(server.url, 'GET', `/api/conversations/${id}/actions`, undefined, 'tok-ada')).body.actions as Array<Record<string, unknown>>;
    const question = actions.find((action) => action.kind === 'question');
    const refund = actions.find((action) => action.kind === 'approval');
    expect(question).toMatchObject({ status: 'resolved', resolvedBy: 'ada', resolution: { type: 'question', answers: { topic: ['technical'], email: ['ada@example.com'] } } });
    expect(refund).toMatchObject({ status: 'resolved', resolvedBy: 'ada', resolution: { type: 'approval', decision: 'allow', approvedArgs: { orderId: 42, amount: 3 } } });
  });
});
