/**
 * What `heed` prints when a start goes wrong, as a person sees it: real processes, one readable line
 * each (no stack trace) and an exit code that says what kind of problem it was (docs/http.md).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, root } from './cli.js';
import { killAll, listeningUrl, startServe } from './serve-process.js';
const dir = mkdtempSync(join(tmpdir(), 'heed-cli-'));
// The configs written here import packages as a project's config would.
symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
const version = (
  JSON.parse((await import('node:fs')).readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
).version;
const closers: Array<() => void> = [];

afterAll(() => {
  for (const close of closers) close();
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** The environment of a person who set no model key. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HEED_DEMO_DELAY_MS: '0', ...extra };
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'HEED_DATABASE_URL', 'npm_lifecycle_event', 'npm_command'])
    if (!(name in extra)) delete env[name];
  return env;
}

/** Runs `heed …` to its end: exit code, stdout and stderr. */
function heed(
  args: string[],
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: root, env, timeout: 30_000 },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

function config(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
}

/** A module of the built package, as the configs written here import it (the server runs the build too). */
const built = (path: string) => JSON.stringify(join(root, 'dist', path));

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return (server.address() as AddressInfo).port;
}

describe('heed serve: one line and a clear exit code when it cannot start', { timeout: 90_000 }, () => {
  it('a port in use: which port, and what to do; exit 1', async () => {
    const port = await listen(createServer());
    const { code, stderr } = await heed(['serve', '--port', String(port), '--db', join(dir, 'port.db')]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `heed: Port ${port} on 127.0.0.1 is already in use (another heed serve?). Stop what uses it, or pick another port with --port (0 picks a free one).\n`,
    );
  });

  it('--database-url given a file name: says it wants a PostgreSQL URL and points at --db; exit 2', async () => {
    const [{ code, stderr, stdout }, fromEnv] = await Promise.all([
      heed(['serve', '--database-url', 'heed.db']),
      heed(['serve', '--port', '0'], cleanEnv({ HEED_DATABASE_URL: 'heed.db' })),
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'heed serve: --database-url takes a PostgreSQL URL such as postgres://user:password@localhost:5432/heed; got "heed.db". For a SQLite file use --db heed.db instead.\n',
    );
    // The same value in the environment names the variable; it is not the command line, so exit 1.
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toBe(
      'heed: HEED_DATABASE_URL takes a PostgreSQL URL such as postgres://user:password@localhost:5432/heed; got "heed.db". For a SQLite file use --db heed.db instead.\n',
    );
  });

  it('a malformed approval policy names the tool and the line of the config; exit 1', async () => {
    const file = config(
      'policy.config.mjs',
      `import { z } from 'zod';
import { defineConfig, tool } from ${built('index.js')};
import { scriptedModel } from ${built('testing/index.js')};

const pay = tool({
  description: 'Pay a supplier.',
  inputSchema: z.object({ amount: z.number() }),
  needsApproval: true,
  approval: { approvers: ['bob', 'cat'], required: 0 },
  execute: async () => 'paid',
});
export default defineConfig({ agents: [{ name: 'payments', model: scriptedModel(() => ({ text: 'ok' })), tools: { pay } }] });
`,
    );
    const { code, stderr } = await heed(['serve', '--port', '0', '--db', join(dir, 'policy.db'), '--config', file]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `heed: The config ${file}, line 5, could not be loaded: The tool "Pay a supplier." has a malformed approval policy: approval.required: must be a whole number of at least 1.\n`,
    );
  });

  it('an unknown option or command is a usage error, exit 2', async () => {
    const [option, command] = await Promise.all([heed(['serve', '--prot', '3000']), heed(['srve'])]);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe(`heed serve: Unknown option '--prot' (heed serve --help lists the options).\n`);
    expect(command.code).toBe(2);
    expect(command.stderr).toBe(
      'heed: there is no command "srve"; the commands are serve, inbox, mcp, backup, audit and erase (heed --help shows them).\n',
    );
  });

  it('heed audit and heed erase: a wrong line is exit 2, a missing database or file exit 1 or 2, each with its sentence', async () => {
    const missing = join(dir, 'nowhere.db');
    const [bare, noUser, noDb, noFile] = await Promise.all([
      heed(['audit']),
      heed(['erase', '--db', missing]),
      heed(['audit', 'verify', '--db', missing]),
      heed(['audit', 'verify', '--file', join(dir, 'nowhere.jsonl')]),
    ]);
    expect([bare.code, bare.stderr]).toEqual([2, 'heed audit: say export or verify (heed --help shows them).\n']);
    expect([noUser.code, noUser.stderr]).toEqual([2, 'heed erase: name the person with --user <id>.\n']);
    expect([noDb.code, noDb.stderr]).toEqual([
      2,
      `heed audit verify: there is no database at ${missing} (--db names it).\n`,
    ]);
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toContain('cannot read');
  });

  it('--version prints the version and exits 0', async () => {
    const runs = [['--version'], ['-v'], ['serve', '--version']];
    const results = await Promise.all(runs.map((args) => heed(args)));
    for (const [index, { code, stdout, stderr }] of results.entries())
      expect([runs[index], code, stdout, stderr]).toEqual([runs[index], 0, `heed ${version}\n`, '']);
  });
});

describe('heed serve: what would fail later is said at start, one line per agent', { timeout: 90_000 }, () => {
  it('a model with no API key, a provider nothing answers for, a key the provider refuses; a config with no agents', async () => {
    const refusing = createServer((request, response) => {
      response
        .writeHead(request.url === '/v1/models' ? 401 : 404, { 'content-type': 'application/json' })
        .end('{"error":{"message":"Incorrect API key"}}');
    });
    const refusingPort = await listen(refusing);
    const closed = await listen(createServer());
    closers.at(-1)!();
    const file = config(
      'models.config.mjs',
      `import { createOpenAI } from '@ai-sdk/openai';
import { defineConfig } from ${built('index.js')};

export default defineConfig({
  agents: [
    { name: 'no-key', model: createOpenAI().chat('gpt-4o-mini') },
    { name: 'nobody-home', model: createOpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:${closed}/v1' }).chat('gpt-4o-mini') },
    { name: 'refused', model: createOpenAI({ apiKey: 'sk-wrong', baseURL: 'http://127.0.0.1:${refusingPort}/v1' }).chat('gpt-4o-mini') },
    { name: 'refused-too', model: createOpenAI({ apiKey: 'sk-wrong', baseURL: 'http://127.0.0.1:${refusingPort}/v1' }).chat('gpt-4o') },
  ],
});
`,
    );
    const server = await startServe(['--db', join(dir, 'models.db'), '--config', file], {
      OPENAI_API_KEY: undefined,
    } as unknown as Record<string, string>);
    const warnings = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('Warning:'));
    expect(warnings).toEqual([
      `Warning: agent "no-key" (openai.chat gpt-4o-mini) will fail at its first message: OpenAI API key is missing. Pass it using the 'apiKey' parameter or the OPENAI_API_KEY environment variable.`,
      `Warning: agent "nobody-home" (openai.chat gpt-4o-mini) will fail at its first message: the provider at http://127.0.0.1:${closed}/v1 cannot be reached: nothing answers there (connection refused). Check its address (baseURL, or OPENAI_BASE_URL for OpenAI) and that it runs.`,
      `Warning: agent "refused" (openai.chat gpt-4o-mini) will fail at its first message: the provider at http://127.0.0.1:${refusingPort}/v1 refused its API key (401). Check the key (OPENAI_API_KEY for OpenAI).`,
      `Warning: agent "refused-too" (openai.chat gpt-4o) will fail at its first message: the provider at http://127.0.0.1:${refusingPort}/v1 refused its API key (401). Check the key (OPENAI_API_KEY for OpenAI).`,
    ]);
    // Said before it listens; it still starts, and stops cleanly.
    expect(server.output().indexOf('Warning:')).toBeLessThan(server.output().indexOf('Heed listening'));
    expect(await server.stop()).toBe(0);

    const empty = config('empty.config.mjs', `export default { agents: [] };\n`);
    const none = await startServe(['--db', join(dir, 'empty.db'), '--config', empty]);
    expect(none.output()).toContain(
      'Warning: the config has no agents, so there is nothing to talk to; add some to agents: [ … ].\n',
    );
    expect(await none.stop()).toBe(0);
  });
});

describe('heed serve under npm: stopping npm stops the server', { timeout: 90_000 }, () => {
  it('npm passes a signal to its shell, which ends without passing it on: the server sees npm go and stops', async () => {
    // npx runs a package's command as `sh -c '<command>'` below npm; the shell here stands for both.
    const child = spawn(
      'sh',
      ['-c', `"${process.execPath}" "${CLI}" serve --port 0 --db "${join(dir, 'npm.db')}"; echo "the shell went on"`],
      {
        cwd: root,
        env: cleanEnv({ npm_lifecycle_event: 'npx', npm_command: 'exec', EDITOR: 'vi' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const shellExited = new Promise((resolve) => child.once('exit', resolve));
    const url = await listeningUrl(() => output, shellExited);
    expect((await fetch(`${url}/health`)).status).toBe(200);

    child.kill('SIGTERM');
    await shellExited;
    // It says it stops, then stops: its last lines come first (a deadline, not a wait: it looks for its
    // parent twice a second, and two busy cores may make that slow). Polling /health instead could see a
    // kept-alive connection closed by the server's idle timeout and take that for the server gone.
    await expect
      .poll(() => output, { timeout: 30_000 })
      .toContain('npm ended: finishing requests under way, then stopping (again to stop at once).\nHeed stopped.\n');
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });
});
