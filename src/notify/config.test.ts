import { describe, expect, it } from 'vitest';
import { refundAgent, testHeed } from '../../test/kit.js';
import { checkConfig } from '../config-schema.js';

const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;
const agents = [refundAgent().agent];

function problem(config: unknown): string {
  try {
    checkConfig(config);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
}

describe('the notify config is checked at start', () => {
  it('accepts webhooks, email and links as documented, on the server and on an agent', () => {
    const notify = {
      publicUrl: 'https://heed.example.com',
      webhooks: [{ url: 'https://hooks.example.com/heed', secret, events: ['action.required'], agents: ['support'] }],
      email: { transport: 'smtp://127.0.0.1:2525', from: 'Heed <heed@example.com>', to: () => 'ada@example.com' },
      linkSecret: 'x'.repeat(32),
      operators: ['ops'],
      retry: { firstDelayMs: 1000, maxDelayMs: 60_000, giveUpAfterMs: 3_600_000 },
      attemptTimeoutMs: 5000,
      pollIntervalMs: 500,
      linkTtlMinutes: 60,
    };
    expect(problem({ agents: [{ ...agents[0], notify: { webhooks: notify.webhooks } }], notify })).toBe('accepted');
  });

  it('refuses a secret that is not a Standard Webhooks one, an unknown event, a bad URL and a typo, naming the path', () => {
    expect(problem({ agents, notify: { webhooks: [{ url: 'https://h.example', secret: 'plain' }] } })).toContain(
      'notify.webhooks[0].secret: expected a Standard Webhooks secret',
    );
    expect(
      problem({ agents, notify: { webhooks: [{ url: 'https://h.example', secret, events: ['action.done'] }] } }),
    ).toContain('notify.webhooks[0].events[0]');
    expect(problem({ agents, notify: { publicUrl: 'heed.example.com' } })).toContain(
      'notify.publicUrl: expected an http:// or https:// URL',
    );
    expect(problem({ agents, notify: { webhook: [] } })).toContain('notify.webhook: unknown key');
    expect(problem({ agents, notify: { linkSecret: 'short' } })).toContain(
      'notify.linkSecret: expected at least 32 characters',
    );
    expect(problem({ agents, notify: { email: { transport: 'smtp://x', from: 'a@b.c' } } })).toContain(
      'notify.email.to',
    );
  });

  it('createHeed checks it too', () => {
    expect(() => testHeed(agents, { notify: { operators: 'ops' } as never })).toThrow(/notify\.operators/);
  });
});
