import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHeed, type HeedOptions } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { CLI, root } from './cli.js';
import { call, killAll, startServe } from './serve-process.js';
const dir = mkdtempSync(join(tmpdir(), 'heed-config-'));

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `heed serve` with a config that should not start; resolves with its exit code and what it printed. */
function failedStart(config: string, db: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, 'serve', '--port', '0', '--db', db, '--config', config],
      { cwd: root, env: { ...process.env, OPENAI_API_KEY: '' }, timeout: 15_000 },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, output: `${stdout}${stderr}` }),
    );
  });
}

// A config is checked whole at start: a token mapped to strings once made every token one user with no id
// (bob read alice's conversations), and a typo such as `agent:` was ignored.
describe('the config is checked when heed serve starts', () => {
  it('tokens written as plain user ids (the shorthand) work as those users: bob cannot read alice’s conversation', async () => {
    const server = await startServe([
      '--db',
      join(dir, 'tokens.db'),
      '--config',
      'test/fixtures/heed.string-tokens.config.mjs',
    ]);
    const created = await call(server.url, 'POST', '/api/conversations', { agent: 'echo' }, 'tok-a');
    expect(created.status).toBe(201);
    expect(created.body.ownerId).toBe('alice');
    expect((await call(server.url, 'GET', `/api/conversations/${created.body.id}`, undefined, 'tok-a')).status).toBe(
      200,
    );
    const asBob = await call(server.url, 'GET', `/api/conversations/${created.body.id}`, undefined, 'tok-b');
    expect(asBob.status).toBe(404);
    expect((await call(server.url, 'GET', '/api/conversations', undefined, 'tok-b')).body.conversations).toEqual([]);
    expect(await server.stop()).toBe(0);
  });

  it('a token mapped to something else stops the start with exit code 1, naming its path', async () => {
    const db = join(dir, 'bad-token.db');
    const { code, output } = await failedStart('test/fixtures/heed.bad-token.config.mjs', db);
    expect(code).toBe(1);
    expect(output).toContain('The config test/fixtures/heed.bad-token.config.mjs is not valid');
    expect(output).toContain('auth.tokens["tok-a"]: expected { userId }');
    expect(output).not.toContain('Heed listening');
    // Checked before anything is opened.
    expect(existsSync(db)).toBe(false);
  });

  it('an unknown key (agent for agents) stops the start, naming it and the keys that exist', async () => {
    const { code, output } = await failedStart('test/fixtures/heed.typo.config.mjs', join(dir, 'typo.db'));
    expect(code).toBe(1);
    expect(output).toContain('agent: unknown key (expected one of: agents, tools, ask, store');
    expect(output).toContain('limits.conversationPerMinute: unknown key (expected one of: ');
    expect(output).toContain('conversationsPerMinute');
    expect(output).toContain('agents: expected a list of agents');
  });
});

describe('createHeed checks its options the same way', () => {
  const model = scriptedModel(() => ({ text: 'hi' }));
  const attempt = (options: unknown) => {
    try {
      createHeed(options as HeedOptions);
      return 'started';
    } catch (thrown) {
      return (thrown as Error).message;
    }
  };

  it('names the path of each problem', () => {
    expect(attempt({ agents: [{ name: 'a', model }], sweepIntervalMs: 0, limit: {} })).toContain('limit: unknown key');
    expect(attempt({ agents: [{ name: 'a', model: 'gpt-4o' }], sweepIntervalMs: 0 })).toContain(
      'agents[0].model: expected an AI SDK language model',
    );
    expect(attempt({ agents: [{ name: 'a', model, tols: {} }], sweepIntervalMs: 0 })).toContain(
      'agents[0].tols: unknown key',
    );
    expect(attempt({ agents: [{ name: 'a', model }], sweepIntervalMs: 0, hitl: { timeoutMinutes: '5' } })).toContain(
      'hitl.timeoutMinutes: expected a number',
    );
    expect(
      attempt({ agents: [{ name: 'a', model }], sweepIntervalMs: 0, limits: { conversationsPerMinute: 1.5 } }),
    ).toContain('limits.conversationsPerMinute: expected a whole number');
    expect(attempt({ agents: [{ name: 'a', model }], sweepIntervalMs: 0, pendingActionPolicy: 'queue' })).toContain(
      'pendingActionPolicy: expected "reject" or "cancel"',
    );
  });

  it('takes a well-formed config, functions checked for their kind only', async () => {
    const heed = createHeed({
      agents: [{ name: 'a', model, hitl: { onTimeout: 'cancel' }, mcpServers: {} }],
      sweepIntervalMs: 0,
      hitl: { authorizeResolve: () => true },
      limits: { maxMetadataBytes: 100, conversationsPerMinute: 0 },
      now: () => new Date(),
    });
    await heed.close();
  });
});
