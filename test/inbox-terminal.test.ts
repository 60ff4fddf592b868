import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasTmux, terminal } from './terminal.js';
import { CLI, builtModule, root } from './cli.js';
import { call, killAll, listeningUrl, startServe, type ServeProcess } from './serve-process.js';

// `heed inbox` as a person uses it: the real command in a real pseudo-terminal (tmux, 80×24), against a
// real `heed serve`, answered by keystrokes alone; the answers are then read back over HTTP.
const dir = mkdtempSync(join(tmpdir(), 'heed-inbox-'));
const socket = `heed-inbox-${process.pid}`;
const { tmux, open, until, press } = terminal(socket);
let server: ServeProcess | undefined;

afterAll(async () => {
  tmux('kill-server');
  await server?.stop();
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

function inbox(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, 'inbox', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
}

describe.skipIf(!hasTmux)('heed inbox in a terminal', () => {
  it(
    'answers a typed question and an approval by keystrokes; the answers are stored',
    { timeout: 90_000 },
    async () => {
      const config = join(dir, 'heed.config.mjs');
      writeFileSync(
        config,
        `import { defineConfig } from ${builtModule('index.js')};
import { demoAgents } from ${builtModule('cli/demo-agents.js')};
export default defineConfig({ agents: demoAgents({ chunkDelayMs: 0 }), auth: { tokens: { 'tok-ada': 'ada' } } });
`,
      );
      server = await startServe(['--db', join(dir, 'inbox.db'), '--config', config]);
      const conversation = await call(server.url, 'POST', '/api/conversations', { agent: 'helpdesk' }, 'tok-ada');
      const id = conversation.body.id as string;
      expect(
        (await call(server.url, 'POST', `/api/conversations/${id}/messages`, { content: 'hello' }, 'tok-ada')).body
          .status,
      ).toBe('requires_action');

      // A wrong token is one sentence and a non-zero exit; --json prints the list for scripts.
      const refused = inbox(['--url', server.url, '--token', 'wrong']);
      expect(refused.status).toBe(1);
      expect(refused.stderr.trim()).toBe(
        `heed inbox: The server at ${server.url} does not know that token (401 unauthorized). Check --token or HEED_TOKEN.`,
      );
      const listed = inbox(['--json'], { HEED_URL: server.url, HEED_TOKEN: 'tok-ada' });
      expect(listed.status).toBe(0);
      const lines = listed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toMatchObject([{ kind: 'question', toolName: 'intake', agent: 'helpdesk', conversationId: id }]);

      const command = `env -u EDITOR -u VISUAL HEED_URL=${server.url} HEED_TOKEN=tok-ada ${process.execPath} ${CLI} inbox --interval 0.5; echo "exited with $?"; sleep 600`;
      open(command, root);

      // The first screen waits for the program to start (slow on a loaded machine).
      await until('What do you need help with? (+1 more)', 60_000);
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
      const sent = await call(
        server.url,
        'POST',
        `/api/conversations/${id}/messages`,
        { content: 'refund order 42 for $5' },
        'tok-ada',
      );
      expect(sent.body.status).toBe('requires_action');
      await until('Refund $5 on order 42?');
      await press('j', 'Enter');
      await until('a allow · d deny · e edit · r remember · Esc back');
      await press('e', 'j', 'Enter', '3', 'Enter');
      await until(/amount\s+3/);
      await press('Escape');
      // "Arguments (edited):" shows while the fields are still open too; the JSON shows once Esc has landed.
      const approval = await until('"amount": 3,');
      expect(approval).toContain('Arguments (edited):');
      for (const line of approval.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(80);
      await press('a');
      await until('✓ you: allowed with changes');
      await press('q');
      await until('exited with 0');

      const actions = (await call(server.url, 'GET', `/api/conversations/${id}/actions`, undefined, 'tok-ada')).body
        .actions as Array<Record<string, unknown>>;
      const question = actions.find((action) => action.kind === 'question');
      const refund = actions.find((action) => action.kind === 'approval');
      expect(question).toMatchObject({
        status: 'resolved',
        resolvedBy: 'ada',
        resolution: { type: 'question', answers: { topic: ['technical'], email: ['ada@example.com'] } },
      });
      expect(refund).toMatchObject({
        status: 'resolved',
        resolvedBy: 'ada',
        resolution: { type: 'approval', decision: 'allow', approvedArgs: { orderId: 42, amount: 3 } },
      });
    },
  );
});

// `heed inbox` with no flags against `heed serve` with no config, as a new user runs them: the default
// address (port 3000) and the demo user's token learned from the server. Port 3000 belongs to this test
// alone: the server and the inbox run in a network namespace of their own, with only loopback in it.
const canIsolate = hasTmux && process.getuid?.() === 0 && spawnSync('unshare', ['-n', 'true']).status === 0;

describe.skipIf(!canIsolate)('heed inbox against the demo, no flags', () => {
  let holder: ReturnType<typeof spawn> | undefined;
  let demo: ReturnType<typeof spawn> | undefined;
  const session = 'demo-inbox';
  const demoTerminal = terminal(`${socket}-demo`, { window: session });
  const { until: see, press: type } = demoTerminal;

  afterAll(() => {
    demoTerminal.close();
    for (const child of [demo, holder]) if (child?.pid) child.kill('SIGKILL');
  });

  it(
    'lists ada’s waiting requests; ? shows the keys, / filters, e edits in place under npm, a wide terminal shows the detail beside the list',
    { timeout: 180_000 },
    async () => {
      holder = spawn('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec sleep 900'], { stdio: 'ignore' });
      const netns = `--net=/proc/${holder.pid}/ns/net`;
      const inside = (...command: string[]) => ['nsenter', netns, ...command];
      for (
        let tries = 0;
        !spawnSync('nsenter', [netns, 'ip', '-o', 'link', 'show', 'lo'], { encoding: 'utf8' }).stdout.includes(
          'LOWER_UP',
        );
        tries++
      ) {
        if (tries > 100) throw new Error('The network namespace did not come up.');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // A JSON call from inside the namespace.
      const api = (method: string, path: string, token: string, body?: unknown) => {
        const script = `const [method, url, token, body] = JSON.parse(process.argv[1]);
const response = await fetch(url, { method, headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body: body ?? undefined });
console.log(JSON.stringify({ status: response.status, body: await response.json() }));`;
        const [command, ...args] = inside(
          process.execPath,
          '--input-type=module',
          '-e',
          script,
          JSON.stringify([
            method,
            `http://127.0.0.1:3000${path}`,
            token,
            body === undefined ? null : JSON.stringify(body),
          ]),
        );
        const run = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
        return JSON.parse(run.stdout) as { status: number; body: any };
      };

      const [command, ...args] = inside(process.execPath, CLI, 'serve', '--db', join(dir, 'demo', 'heed.db'));
      mkdirSync(join(dir, 'demo'));
      demo = spawn(command, args, {
        cwd: root,
        env: { ...process.env, OPENAI_API_KEY: '', HEED_DEMO_DELAY_MS: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      demo.stdout!.on('data', (chunk) => (output += chunk));
      demo.stderr!.on('data', (chunk) => (output += chunk));
      const exited = new Promise((resolve) => demo!.once('exit', resolve));
      expect(await listeningUrl(() => output, exited)).toBe('http://127.0.0.1:3000');

      // What npm puts in the environment of what it runs (npx heed inbox): EDITOR=vi when the person set no editor.
      const npmEnv =
        'npm_lifecycle_event=npx npm_command=exec npm_execpath=/usr/lib/node_modules/npm/bin/npm-cli.js npm_config_user_agent=npm/11 EDITOR=vi';
      const line = `${inside('env', '-u', 'VISUAL', '-u', 'HEED_URL', '-u', 'HEED_TOKEN', ...npmEnv.split(' '), process.execPath, CLI, 'inbox').join(' ')}; echo "exited with $?"; sleep 600`;
      demoTerminal.open(line, root);

      const list = await see('Heed inbox · 3 waiting · ada (demo) · http://127.0.0.1:3000', 60_000);
      await see('Where would you like to go? (+3 more)');
      // The agents' names come with a second read.
      await see(/› Approval +helpdesk +Refund \$30 on order 42\?/);
      await see(/ {2}Approval +finance +Refund \$80 on order 1042\?/);
      expect(list).toContain('↑↓ / j k move · Enter open · / filter · ? keys · q quit');

      // ? shows every key; any key goes back.
      await type('?');
      const help = await see('Heed inbox — keys');
      expect(help).toContain('/                 filter: type, Enter keeps it, Esc clears it');
      for (const row of help.split('\n')) expect(Array.from(row).length).toBeLessThanOrEqual(80);
      await type('Escape');
      await see('↑↓ / j k move · Enter open · / filter · ? keys · q quit');

      // / filters as you type; Enter keeps the filter and opens the one row left: grace's refund, voted on.
      await type('/', '1042');
      const filtered = await see('Filter: 1042▏  1 of 3');
      expect(filtered).not.toContain('Refund $30');
      await type('Enter');
      await see('Filter: "1042"  1 of 3');
      await type('Enter');
      await see('0 of 2 approvals · waiting on ada, grace');
      await type('a');
      await see('✓ you voted; 1 of 2 approvals: ada allowed');
      await type('Escape');
      await see(/› Approval +helpdesk +Refund \$30 on order 42\?/);

      // e under npm's EDITOR=vi: the arguments are edited in place, not in vi.
      await type('Enter');
      await see('a allow · d deny · e edit · r remember · Esc back');
      await type('e');
      await see('↑↓ field · Enter edit it · Esc done');
      await type('j', 'Enter', '25', 'Enter');
      await see(/amount\s+25/);
      await type('Escape');
      await see('"amount": 25,');
      await type('a');
      await see('✓ you: allowed with changes');

      // ? in a request, over what was picked: it stays picked.
      await type('/', 'trip', 'Enter', 'Enter');
      await see('Question 1 of 4 — Destination');
      await type('2');
      await see('(•) Kyoto');
      await type('?');
      await see('Heed inbox — keys');
      await type('Escape');
      await see('(•) Kyoto');
      await type('Escape');

      // Wide: the selected request beside the list.
      demoTerminal.tmux('resize-window', '-t', session, '-x', '140', '-y', '30');
      const wide = await see('│ 1. Destination — Where would you like to go?');
      expect(wide).toMatch(
        /^Heed inbox · 1 waiting · ada \(demo\) · http:\/\/127\.0\.0\.1:3000 +│ Question · trip-planner · ask · asked/m,
      );
      expect(wide).toMatch(/^› Question +trip-pla… Where would you like to go\?… .* left +│ 1\. Destination/m);
      for (const row of wide.split('\n')) expect(Array.from(row).length).toBeLessThanOrEqual(140);
      await type('q');
      await see('exited with 0');

      // What the keys did, read back from the server.
      const finance = api('GET', '/api/conversations/demo-finance-grace/actions', 'demo-grace').body.actions[0];
      expect(finance).toMatchObject({ status: 'pending', votes: [{ by: 'ada', decision: 'allow' }] });
      const helpdesk = api('GET', '/api/conversations/demo-helpdesk-ada/actions', 'demo-ada').body.actions.find(
        (action: { kind: string }) => action.kind === 'approval',
      );
      expect(helpdesk).toMatchObject({
        status: 'resolved',
        resolvedBy: 'ada',
        resolution: { decision: 'allow', approvedArgs: { orderId: 42, amount: 25 } },
      });
      // Grace's vote completes the four-eyes refund.
      const decided = api('POST', `/api/conversations/demo-finance-grace/actions/${finance.id}`, 'demo-grace', {
        resolution: { type: 'approval', decision: 'allow' },
      });
      expect(decided.body.status).toBe('completed');
    },
  );
});
