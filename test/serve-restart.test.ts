import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureConfig } from './cli.js';
import { call as callServe, killAll, startServe } from './serve-process.js';

// `heed serve` as a separate process: restarts between the pause and the answer, graceful shutdown.
const dir = mkdtempSync(join(tmpdir(), 'heed-serve-'));
const start = startServe;
/** Anonymous unless a token is given. */
const call = (url: string, method: string, path: string, body?: unknown, token?: string) =>
  callServe(url, method, path, body, token ?? null);

/** Waits until the answer to the conversation's action is recorded (its continuation is then running). */
async function recorded(url: string, target: { id: string; actionId: string }): Promise<void> {
  await expect
    .poll(
      async () => {
        const actions = await call(url, 'GET', `/api/conversations/${target.id}/actions`, undefined, 'token-ada');
        return actions.body.actions.find((action: { id: string }) => action.id === target.actionId)?.status;
      },
      { interval: 20 },
    )
    .toBe('resolved');
}

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('heed serve (separate process)', () => {
  it('the installed `heed` command runs, as the README types it (npx heed …)', async () => {
    const { execFile } = await import('node:child_process');
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        'npx',
        ['--no-install', 'heed', '--help'],
        { cwd: join(import.meta.dirname, '..') },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    expect(output).toContain('Usage: heed serve');
    // npx re-reads the whole installed tree when node_modules changed after npm's own lockfile of it (the
    // build's Vite cache does that): seconds alone, over 20 s beside the rest of the suite on two cores.
  }, 90_000);

  it('a config that cannot be loaded stops the start with a readable message', async () => {
    const failed = await start(['--config', 'test/fixtures/no-such-config.ts']).catch(
      (thrown: Error) => thrown.message,
    );
    expect(failed).toContain('heed serve exited early');
    expect(failed).toContain('could not be loaded');
  });

  it('an MCP server that cannot be reached stops the start, naming it', async () => {
    const failed = await start([
      '--db',
      join(dir, 'mcp.db'),
      '--config',
      fixtureConfig('heed.unreachable-mcp.config.ts'),
    ]).catch((thrown: Error) => thrown.message);
    expect(failed).toContain('heed serve exited early');
    expect(failed).toContain('The MCP server "contacts" of agent "crm" could not be reached');
  });

  it('a .mjs config works too', async () => {
    const server = await start(['--db', join(dir, 'mjs.db'), '--config', 'test/fixtures/heed.config.mjs']);
    const agents = await call(server.url, 'GET', '/api/agents');
    expect(agents.body.agents.map((agent: { name: string }) => agent.name)).toEqual(['echo']);
    const conversation = await call(server.url, 'POST', '/api/conversations', { agent: 'echo' });
    const sent = await call(server.url, 'POST', `/api/conversations/${conversation.body.id}/messages`, {
      content: 'hello',
    });
    expect(sent.body.messages.at(-1).parts[0].text).toBe('Echo.');
    expect(await server.stop()).toBe(0);
  });

  it('demo agents: a question asked before a restart is answered after it', async () => {
    const db = join(dir, 'demo.db');
    const first = await start(['--db', db]);
    const agents = await call(first.url, 'GET', '/api/agents');
    expect(agents.body.agents.map((agent: { name: string }) => agent.name)).toEqual([
      'helpdesk',
      'trip-planner',
      'page-helper',
      'finance',
    ]);
    const conversation = await call(first.url, 'POST', '/api/conversations', { agent: 'trip-planner' });
    const paused = await call(first.url, 'POST', `/api/conversations/${conversation.body.id}/messages`, {
      content: 'Plan a weekend away',
    });
    expect(paused.body.status).toBe('requires_action');
    const [question] = paused.body.pendingActions;
    expect(question.questions.map((entry: { header: string }) => entry.header)).toEqual([
      'Destination',
      'Start date',
      'Travellers',
      'Flexible',
    ]);
    expect(await first.stop()).toBe(0);

    const second = await start(['--db', db]);
    const answered = await call(
      second.url,
      'POST',
      `/api/conversations/${conversation.body.id}/actions/${question.id}`,
      {
        resolution: {
          type: 'question',
          answers: { Destination: 'Kyoto', 'Start date': '2031-04-02', Travellers: '3' },
        },
      },
    );
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('completed');
    expect(answered.body.messages.at(-1).parts[0].text).toContain('Where would you like to go? → Kyoto');
    const again = await call(second.url, 'POST', `/api/conversations/${conversation.body.id}/actions/${question.id}`, {
      resolution: { type: 'question', skip: true },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.details.resolution.answers.Destination).toEqual(['kyoto']);
    expect(await second.stop('SIGINT')).toBe(0);
  });

  // A deadline, not a wait: three `heed serve` starts on a .ts config (tsx), on two cores that may be busy.
  it('a config file replaces the demo agents; SIGTERM lets an accepted answer finish; a killed continuation is recovered', async () => {
    const db = join(dir, 'config.db');
    const toolLog = join(dir, 'tool.log');
    const env = { HEED_TEST_TOOL_LOG: toolLog, HEED_TEST_TOOL_MS: '400' };
    const server = await start(['--db', db, '--config', 'test/fixtures/heed.config.ts'], env);
    expect((await call(server.url, 'GET', '/api/agents')).status).toBe(401);
    const agents = await call(server.url, 'GET', '/api/agents', undefined, 'token-ada');
    expect(agents.body.agents.map((agent: { name: string }) => agent.name)).toEqual(['refunds']);

    const open = async (url: string) => {
      const conversation = await call(url, 'POST', '/api/conversations', { agent: 'refunds' }, 'token-ada');
      const paused = await call(
        url,
        'POST',
        `/api/conversations/${conversation.body.id}/messages`,
        { content: 'refund' },
        'token-ada',
      );
      return { id: conversation.body.id as string, actionId: paused.body.pendingActions[0].id as string };
    };
    const graceful = await open(server.url);
    const killed = await open(server.url);

    // SIGTERM while the continuation runs: the answer's response still completes.
    const answering = call(
      server.url,
      'POST',
      `/api/conversations/${graceful.id}/actions/${graceful.actionId}`,
      { resolution: { type: 'approval', decision: 'allow' } },
      'token-ada',
    );
    await recorded(server.url, graceful);
    const exit = server.stop('SIGTERM');
    expect((await answering).body.status).toBe('completed');
    expect(await exit).toBe(0);
    expect(readFileSync(toolLog, 'utf8').trim().split('\n')).toHaveLength(1);

    // SIGKILL while the continuation runs: the recorded answer is not lost; the next start carries it through.
    const crashing = await start(['--db', db, '--config', 'test/fixtures/heed.config.ts'], {
      ...env,
      HEED_TEST_TOOL_MS: '5000',
    });
    const lost = call(
      crashing.url,
      'POST',
      `/api/conversations/${killed.id}/actions/${killed.actionId}`,
      { resolution: { type: 'approval', decision: 'allow' } },
      'token-ada',
    ).catch(() => 'connection lost');
    await recorded(crashing.url, killed);
    await crashing.stop('SIGKILL');
    expect(await lost).toBe('connection lost');

    const restarted = await start(['--db', db, '--config', 'test/fixtures/heed.config.ts'], env);
    const snapshot = async () =>
      (await call(restarted.url, 'GET', `/api/conversations/${killed.id}`, undefined, 'token-ada')).body;
    await expect.poll(async () => (await snapshot()).runtime.status, { timeout: 5000 }).toBe('idle');
    expect((await snapshot()).messages.at(-1).parts[0].text).toBe('Refunded.');
    const actions = await call(restarted.url, 'GET', `/api/conversations/${killed.id}/actions`, undefined, 'token-ada');
    expect(actions.body.actions[0]).toMatchObject({ status: 'resolved', resolvedBy: 'ada' });
    // Each refund ran to completion once (the killed run never got to its side effect).
    const runs = readFileSync(toolLog, 'utf8').trim().split('\n');
    expect(runs).toHaveLength(2);
    expect(new Set(runs).size).toBe(2);
    expect(await restarted.stop()).toBe(0);
  }, 180_000);
});
