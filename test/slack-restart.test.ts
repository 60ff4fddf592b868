import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { fixtureConfig } from './cli.js';
import { killAll, startServe } from './serve-process.js';
import { click, fakeSlack, mention, sendToHeed } from './slack/fake-slack.js';

const secret = 'slack-signing-secret-for-restart';
const dir = mkdtempSync(join(tmpdir(), 'heed-slack-restart-'));
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('Slack posts survive a crash', () => {
  it('a process killed (SIGKILL) between the pause and the post posts the request after the restart, once', async () => {
    const slack = await fakeSlack();
    // Slack is out when the turn pauses: the post is kept in the outbox and retried.
    slack.down = true;
    const env = { HEED_SLACK_API_URL: slack.apiUrl, HEED_SLACK_SECRET: secret };
    const args = ['--config', fixtureConfig('slack.config.ts'), '--db', join(dir, 'heed.db')];
    let server = await startServe(args, env);
    const answered = await sendToHeed(
      server.url,
      secret,
      mention('refund order 42', { ts: '1700000000.000009', eventId: 'EvRestart' }),
    );
    expect(answered.status).toBe(200);
    await slack.until(() => slack.refused.includes('chat.postMessage'));
    expect(slack.calls).toEqual([]);
    expect(await server.stop('SIGKILL')).toBe('SIGKILL');

    // Back up, and restarted: the request is posted (once its dead claim runs out), and only once.
    slack.down = false;
    server = await startServe(args, env);
    await slack.until((calls) => calls.some((call) => call.method === 'chat.postMessage'), 20_000);
    const request = slack.of('chat.postMessage')[0];
    expect(request.body).toMatchObject({ channel: 'C1', thread_ts: '1700000000.000009' });
    expect(JSON.stringify(request.body.blocks)).toContain('Approval needed:');

    // Slack retries the mention after the outage: still one conversation, one request.
    expect(
      (
        await sendToHeed(
          server.url,
          secret,
          mention('refund order 42', { ts: '1700000000.000009', eventId: 'EvRestart' }),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await sendToHeed(
          server.url,
          secret,
          click({ ts: request.answer.ts, blocks: request.body.blocks }, 'Allow', 'U2'),
          { form: true },
        )
      ).status,
    ).toBe(200);
    await slack.until(
      (calls) => calls.some((call) => call.method === 'chat.postMessage' && call.body.text === 'Refunded.'),
      10_000,
    );
    await slack.until(() => slack.of('chat.update').length === 1);
    // The outbox is done: every notification stored is marked sent (a second post of one would need a
    // claim of a row still pending). What Slack got is then all it gets.
    const store = sqliteStore({ path: join(dir, 'heed.db') });
    try {
      await expect.poll(() => store.listDeliveries({ status: 'pending' })).toEqual([]);
    } finally {
      await store.close();
    }
    expect(slack.of('chat.postMessage').map((call) => call.body.text)).toEqual([
      'Approval needed: Run issue_refund?',
      'Refunded.',
    ]);
    expect(slack.of('chat.update')).toHaveLength(1);
    await server.stop();
    await slack.close();
  }, 60_000);
});
