import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasTmux, terminal } from './terminal.js';
import { CLI, builtModule, fixtureConfig, root } from './cli.js';
import { call, killAll, startServe, type ServeProcess } from './serve-process.js';

// `heed inbox` answering several requests at once, as a person does it: the real command in a real
// pseudo-terminal (tmux, 80×24) against a real `heed serve`; Space marks, A approves and D denies the
// marked after a summary of what runs; what the server stored is then read back over HTTP.
const dir = mkdtempSync(join(tmpdir(), 'heed-inbox-batch-'));
const socket = `heed-inbox-batch-${process.pid}`;
const { tmux, open, until, press } = terminal(socket);
let server: ServeProcess | undefined;

afterAll(async () => {
  tmux('kill-server');
  await server?.stop();
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

function show(name: string, text: string) {
  if (process.env.HEED_CAPTURE) console.log(`--- ${name}\n${text.replace(/\s+$/, '')}`);
}

describe.skipIf(!hasTmux)('heed inbox: answering the marked requests at once', () => {
  it(
    'marks with Space, approves with A after a summary, says how each went; D denies',
    { timeout: 120_000 },
    async () => {
      const config = join(dir, 'heed.config.mjs');
      writeFileSync(
        config,
        `import { defineConfig } from ${builtModule('index.js')};
import { browserAgents } from ${JSON.stringify(fixtureConfig('browser.config.ts'))};
export default defineConfig({ agents: browserAgents, auth: { tokens: { 'tok-ada': 'ada' } } });
`,
      );
      server = await startServe(['--db', join(dir, 'inbox.db'), '--config', config]);
      const url = server.url;
      async function asked(agent: string, content: string) {
        const { body } = await call(url, 'POST', '/api/conversations', { agent }, 'tok-ada');
        const sent = await call(url, 'POST', `/api/conversations/${body.id}/messages`, { content }, 'tok-ada');
        expect(sent.body.status).toBe('requires_action');
        return { id: body.id as string, actionId: (sent.body.pendingActions as Array<{ id: string }>)[0].id };
      }
      const refunds = [];
      for (const [order, amount] of [
        [1, 12],
        [2, 30],
        [3, 45],
      ])
        refunds.push(await asked('refunds', `refund order ${order} $${amount}`));
      await asked('confirm', 'ship it');

      const command = `HEED_URL=${url} HEED_TOKEN=tok-ada ${process.execPath} ${CLI} inbox --interval 0.5; echo "exited with $?"; sleep 600`;
      open(command, root);
      await until('Ship the order today?', 60_000);

      // A and D with nothing marked say how to mark.
      await press('A');
      await until('Mark requests with Space first, then A approves or D denies them.');
      // Space marks the row and moves on: all four marked, then A shows what will run and what is left out.
      await press('Space', 'Space', 'Space', 'Space');
      show('marked', await until('Space mark · A approve / D deny 4 marked'));
      await press('A');
      const summary = await until('y approve 3 requests · n or Esc back');
      show('approve summary', summary);
      expect(summary).toContain('Approve 3 requests?');
      expect(summary).toContain('  issue_refund: orderId 1 · amount 12 · reason “customer request”');
      expect(summary).toContain('  issue_refund: orderId 3 · amount 45 · reason “customer request”');
      expect(summary).toContain('Left out (1):');
      expect(summary).toContain('Ship the order today? — A question cannot be approved: open it to answer it.');
      expect(summary).toContain('no approval is remembered');

      // Meanwhile order 3 is denied elsewhere: the batch tells who answered it, and how.
      const elsewhere = await call(
        url,
        'POST',
        `/api/conversations/${refunds[2].id}/actions/${refunds[2].actionId}`,
        { resolution: { type: 'approval', decision: 'deny', comment: 'not this one' } },
        'tok-ada',
      );
      expect(elsewhere.status).toBe(200);
      await press('y');
      const results = await until('Approve: 2 of 3 requests settled');
      show('approve results', results);
      expect(results).toContain('✓ Refund $12 on order 1? — Settled: Allowed');
      expect(results).toContain('✓ Refund $30 on order 2? — Settled: Allowed');
      expect(results).toContain('× Refund $45 on order 3? — Already answered by ada: Denied ("not this one")');

      await press('Enter');
      const list = await until('Heed inbox · 1 waiting');
      show('list after', list);
      expect(list).toContain('you: allowed — Refund $12 on order 1?');

      // D on a new refund: nothing runs, and the call is refused.
      const fourth = await asked('refunds', 'refund order 4 $80');
      await until('Refund $80 on order 4?');
      await press('End', 'Space', 'D');
      const denying = await until('y deny 1 request · n or Esc back');
      show('deny summary', denying);
      expect(denying).toContain('Nothing runs. Will be denied:');
      await press('y');
      show('deny results', await until('✓ Refund $80 on order 4? — Settled: Denied'));
      await press('q', 'q');
      await until('exited with 0');

      // Over HTTP: the two approved ran once each, the denied did not, nothing was remembered.
      for (const [index, { id }] of [...refunds, fourth].entries()) {
        const events = (await call(url, 'GET', `/api/conversations/${id}/events?limit=200`, undefined, 'tok-ada')).body
          .events as Array<{ type: string; data: Record<string, unknown> }>;
        const ran = events.filter((event) => event.type === 'tool.result' && !event.data.isError);
        expect(ran.length, `refund ${index + 1}`).toBe(index < 2 ? 1 : 0);
        const remembered = await call(url, 'GET', `/api/conversations/${id}/remembered-tools`, undefined, 'tok-ada');
        expect(remembered.body.tools).toEqual([]);
      }
    },
  );
});
