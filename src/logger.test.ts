/**
 * The `logger` option (docs/deploy.md, "Logs"): what fails in the background is logged through it,
 * with what a person needs to find the cause, instead of being swallowed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHeed, jsonLogger, memoryStore, tool, type Heed, type Logger, type Store } from './index.js';
import { scriptedModel } from './testing/index.js';
import { z } from 'zod';

type Line = { level: string; fields: Record<string, unknown>; message?: string };

function recorder(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (fields: object, message?: string) =>
    void lines.push({ level, fields: fields as Record<string, unknown>, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const refund = tool({
  description: 'Refund',
  inputSchema: z.object({ orderId: z.number() }),
  needsApproval: true,
  execute: async () => 'ok',
});
const model = scriptedModel(({ stepIndex }) =>
  stepIndex === 0 ? { toolCalls: [{ toolName: 'refund', input: { orderId: 42 } }] } : { text: 'Done.' },
);

let heed: Heed | undefined;
afterEach(async () => {
  await heed?.close();
  heed = undefined;
});

describe('the logger option', () => {
  it('a webhook to a dead URL: each failed attempt is a warn naming the target, the delivery and the reason', async () => {
    const logger = recorder();
    heed = createHeed({
      agents: [{ name: 'support', model, tools: { refund } }],
      sweepIntervalMs: 0,
      logger,
      notify: {
        webhooks: [
          {
            url: 'http://127.0.0.1:9/hooks?token=secret',
            secret: `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`,
          },
        ],
        retry: { firstDelayMs: 20, maxDelayMs: 40 },
        pollIntervalMs: 20,
      },
    });
    const conversation = await heed.createConversation({ agent: 'support' });
    expect((await heed.conversation(conversation.id).send('refund 42')).status).toBe('requires_action');
    await until(() => logger.lines.some((line) => line.level === 'warn'));
    const warn = logger.lines.find((line) => line.level === 'warn')!;
    expect(warn.message).toBe('Heed: a delivery attempt failed; it is tried again');
    // The target without its query (a token may sit there), the event, and the reason.
    expect(warn.fields).toMatchObject({
      target: 'http://127.0.0.1:9/hooks',
      event: 'action.required',
      deliveryId: expect.any(String),
      retryInMs: expect.any(Number),
    });
    expect(warn.fields.err).toMatchObject({ message: expect.any(String) });
  });

  it('a sweep that fails is an error in the log, and the next sweep runs', async () => {
    const logger = recorder();
    const store: Store = memoryStore();
    let failures = 1;
    const failing: Store = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'listDue') {
          return (...args: unknown[]) =>
            failures-- > 0
              ? Promise.reject(new Error('disk on fire'))
              : (Reflect.get(target, key, receiver) as (...a: unknown[]) => unknown).apply(target, args);
        }
        return Reflect.get(target, key, receiver);
      },
    });
    heed = createHeed({
      agents: [{ name: 'support', model, tools: { refund } }],
      store: failing,
      sweepIntervalMs: 30,
      logger,
    });
    await until(() => logger.lines.some((line) => line.level === 'error'));
    expect(logger.lines.find((line) => line.level === 'error')).toMatchObject({
      message: 'Heed: the sweep failed; it runs again at the next interval',
      fields: { err: { message: expect.any(String) } },
    });
  });

  it('jsonLogger writes one JSON object per line: level, time, msg and the fields', () => {
    const written: string[] = [];
    const logger = jsonLogger({ write: (line) => written.push(line) });
    logger.debug({ hidden: true }, 'below the level');
    logger.warn({ target: 'http://x' }, 'failed');
    expect(written).toHaveLength(1);
    expect(written[0].endsWith('\n')).toBe(true);
    expect(JSON.parse(written[0])).toEqual({
      level: 'warn',
      time: expect.any(String),
      msg: 'failed',
      target: 'http://x',
    });
  });

  it('a logger of the wrong shape is refused at createHeed', () => {
    expect(() => createHeed({ agents: [], logger: { info() {} } as unknown as Logger })).toThrow(/logger/);
  });
});
