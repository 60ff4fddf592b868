import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasTmux, terminal } from './terminal.js';
import { CLI, builtModule, root } from './cli.js';
import { call, killAll, startServe, type ServeProcess } from './serve-process.js';

// `E` in `heed inbox` (docs/approvals.md, Reminders and extensions), as test/inbox-terminal.test.ts runs
// the inbox: the real command in a real pseudo-terminal (tmux, 80×24) against a real `heed serve`, driven
// by keystrokes; the deadline is then read back over HTTP.
const dir = mkdtempSync(join(tmpdir(), 'heed-inbox-extend-'));
const socket = `heed-inbox-extend-${process.pid}`;
const { tmux, open, screen, until, press } = terminal(socket);
let server: ServeProcess | undefined;

afterAll(async () => {
  tmux('kill-server');
  await server?.stop();
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasTmux)('heed inbox: E extends a request', () => {
  it(
    'E then a number moves the deadline; a choice past hitl.maxExtendMinutes shows the server’s sentence and changes nothing',
    { timeout: 120_000 },
    async () => {
      const config = join(dir, 'heed.config.mjs');
      writeFileSync(
        config,
        `import { z } from ${JSON.stringify(join(root, 'node_modules/zod/index.js'))};
import { defineConfig, tool } from ${builtModule('index.js')};
import { scriptedModel } from ${builtModule('testing/index.js')};
const model = scriptedModel(({ stepIndex }) =>
  stepIndex === 0 ? { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] } : { text: 'Done.' },
);
const issue_refund = tool({
  description: 'Refund an order.',
  inputSchema: z.object({ orderId: z.number(), amount: z.number() }),
  needsApproval: true,
  execute: async () => ({ ok: true }),
});
export default defineConfig({
  agents: [{ name: 'support', model, tools: { issue_refund } }],
  hitl: { timeoutMinutes: 30, maxExtendMinutes: 240 },
  auth: { tokens: { 'tok-ada': 'ada' } },
});
`,
      );
      server = await startServe(['--db', join(dir, 'inbox.db'), '--config', config]);
      const conversation = await call(server.url, 'POST', '/api/conversations', { agent: 'support' }, 'tok-ada');
      const id = conversation.body.id as string;
      const sent = await call(
        server.url,
        'POST',
        `/api/conversations/${id}/messages`,
        { content: 'refund' },
        'tok-ada',
      );
      expect(sent.body.status).toBe('requires_action');
      const deadline = async () =>
        Date.parse(
          (await call(server!.url, 'GET', `/api/conversations/${id}/actions`, undefined, 'tok-ada')).body.actions[0]
            .expiresAt,
        );
      const before = await deadline();

      const command = `env -u EDITOR -u VISUAL HEED_URL=${server.url} HEED_TOKEN=tok-ada ${process.execPath} ${CLI} inbox --interval 0.5; echo "exited with $?"; sleep 600`;
      open(command, root);
      await until(/Approval +support/, 60_000);

      // A day is more than this server allows (four hours): its sentence, in the inbox, and nothing changed.
      await press('E');
      const prompt = await until('1 1 hour · 2 4 hours · 3 1 day · 4 3 days · Esc cancel');
      expect(prompt).toMatch(/Extend “.*”: wait how long from now\?/);
      await press('3');
      await until('A request may be extended by at most 240 minutes from now; 1440 is more than');
      expect(await deadline()).toBe(before);

      // Esc leaves it as it is; E then 2 gives it four hours from now.
      await press('E');
      await until('Esc cancel');
      await press('Escape');
      await until('↑↓ / j k move · Enter open');
      expect(screen()).not.toContain('Esc cancel');
      const pressed = Date.now();
      await press('E', '2');
      await until('Extended: it now lapses');
      const after = await deadline();
      expect(after).toBeGreaterThan(before);
      expect(Math.abs(after - pressed - 240 * 60_000)).toBeLessThan(30_000);
      const events = (await call(server.url, 'GET', `/api/conversations/${id}/events`, undefined, 'tok-ada')).body
        .events as Array<{ type: string; data: Record<string, unknown> }>;
      expect(events.find((event) => event.type === 'action.extended')?.data).toMatchObject({ by: 'ada', minutes: 240 });
      for (const line of screen().split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    },
  );
});
