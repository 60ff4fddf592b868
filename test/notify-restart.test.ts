import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { webhookReceiver } from './notify/receivers.js';
import { fixtureConfig } from './cli.js';
import { call, killAll, startServe } from './serve-process.js';

const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;
const dir = mkdtempSync(join(tmpdir(), 'heed-notify-restart-'));
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('the outbox survives a crash', () => {
  it("a process killed (SIGKILL) while sending a pause's webhook sends it after the restart, with the same id", async () => {
    // The first request is held open: the process has claimed the delivery and is mid-send when it dies.
    const receiver = await webhookReceiver((n) => (n === 1 ? 'hold' : 204));
    const env = { HEED_WEBHOOK_URL: receiver.url, HEED_WEBHOOK_SECRET: secret, HEED_ATTEMPT_TIMEOUT_MS: '3000' };
    const args = ['--config', fixtureConfig('notify.config.ts'), '--db', join(dir, 'heed.db')];
    let server = await startServe(args, env);
    const created = await call(server.url, 'POST', '/api/conversations', { agent: 'support' });
    const turn = await call(server.url, 'POST', `/api/conversations/${created.body.id}/messages`, {
      content: 'refund 42',
    });
    expect(turn.body.status).toBe('requires_action');
    const [first] = await receiver.until((calls) => calls.length === 1);
    expect(await server.stop('SIGKILL')).toBe('SIGKILL');

    // Restarted: once the dead process's claim (twice its attempt timeout, 6 s) runs out, the delivery is sent again.
    server = await startServe(args, env);
    const calls = await receiver.until((all) => all.some((entry) => entry.status === 204), 30_000);
    expect(calls.length).toBe(2);
    const delivered = calls.find((entry) => entry.status === 204)!;
    expect(delivered.headers['webhook-id']).toBe(first.headers['webhook-id']);
    const body = new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>) as {
      type: string;
      data: { action: { id: string } };
    };
    expect(body.type).toBe('action.required');
    expect(body.data.action.id).toBe(turn.body.pendingActions[0].id);
    await server.stop();
    await receiver.close();
  }, 60_000);
});
