/**
 * The libraries a user may not need are optional peer dependencies, loaded only when the config names
 * them (docs/deploy.md): with them not installed, `import 'heed'` and a memory-store Heed work, and a
 * start that needs one fails with `missing_dependency` and the `npm i` line. Real processes, with the
 * packages hidden from both `import` and `require` (test/fixtures/hide-packages.mjs).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, root } from './cli.js';
const hider = join(import.meta.dirname, 'fixtures/hide-packages.mjs');
const optional = [
  'better-sqlite3',
  'pg',
  '@chat-adapter/slack',
  'nodemailer',
  'web-push',
  '@modelcontextprotocol/sdk',
  'prom-client',
  'openid-client',
  '@langchain/langgraph',
  '@langchain/core',
  '@openai/agents',
  'chat',
  '@chat-adapter/telegram',
  '@chat-adapter/github',
  '@chat-adapter/linear',
  '@chat-adapter/discord',
  '@chat-adapter/teams',
  '@chat-adapter/gchat',
  '@chat-adapter/state-redis',
  '@discordjs/ws',
  '@discordjs/rest',
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
];

function run(args: string[], hidden: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HEED_HIDE_PACKAGES: hidden.join(','),
      HEED_DEMO_DELAY_MS: '0',
      OPENAI_API_KEY: '',
    };
    delete env.HEED_DATABASE_URL;
    const child = execFile(
      process.execPath,
      ['--import', hider, ...args],
      { cwd: root, env, timeout: 60_000 },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

async function probe(
  name: string,
  hidden: string[],
): Promise<{ ok: boolean; code?: string; message?: string; details?: Record<string, unknown>; value?: unknown }> {
  const { stdout, stderr } = await run(
    ['--import', 'tsx', join(import.meta.dirname, 'fixtures/optional-packages-probe.ts'), name],
    hidden,
  );
  const line = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as { ok: boolean };
  } catch {
    throw new Error(`The probe printed no result.\nstdout: ${stdout}\nstderr: ${stderr}`);
  }
}

describe('optional packages', { timeout: 90_000 }, () => {
  it("import 'heed' and a memory-store Heed load none of them (nor the HTTP server)", async () => {
    expect(
      await probe('library', [...optional, 'hono', '@hono/node-server', 'ink', '@ag-ui/core', '@ag-ui/encoder']),
    ).toEqual({
      ok: true,
      value: { status: 'completed' },
    });
  });

  it.each([
    ['sqlite', 'better-sqlite3', 'The SQLite store'],
    ['postgres', 'pg', 'The PostgreSQL store'],
    ['email', 'nodemailer', 'Email notifications (notify.email)'],
    ['push', 'web-push', 'Web Push (notify.push)'],
    ['slack', '@chat-adapter/slack', 'The Slack channel'],
    ['slack', 'chat', 'The Slack channel'],
    ['telegram', '@chat-adapter/telegram', 'The Telegram channel'],
    ['telegram', 'chat', 'The Telegram channel'],
    ['telegramRedis', '@chat-adapter/state-redis', 'The Telegram channel with channels.state.redis'],
    ['mcp', '@modelcontextprotocol/sdk', 'An agent with mcpServers'],
    ['metrics', 'prom-client', 'metrics: true'],
    ['telemetry', '@opentelemetry/api', 'Traces (telemetry)'],
    ['telemetry', '@opentelemetry/exporter-trace-otlp-http', 'Traces (telemetry)'],
    ['oidc', 'openid-client', 'Sign-in with auth.oidc'],
    ['langgraph', '@langchain/langgraph', 'heed/langgraph (langgraphAgent)'],
    ['openaiAgents', '@openai/agents', 'heed/openai-agents (openaiAgent)'],
  ])('%s without %s: the start fails with missing_dependency and the npm i line', async (name, pkg, feature) => {
    const result = await probe(name, [pkg]);
    expect(result).toMatchObject({
      ok: false,
      code: 'missing_dependency',
      details: { package: pkg, install: `npm i ${pkg}` },
    });
    expect(result.message).toBe(`${feature} needs the package ${pkg}, which is not installed. Run: npm i ${pkg}`);
  });

  it('heed serve on its SQLite default, without better-sqlite3: one line naming npm i better-sqlite3, exit 1', async () => {
    const { code, stderr } = await run([CLI, 'serve', '--port', '0', '--db', ':memory:'], ['better-sqlite3']);
    expect(code).toBe(1);
    expect(stderr).toContain(
      'The SQLite store needs the package better-sqlite3, which is not installed. Run: npm i better-sqlite3',
    );
  });
});
