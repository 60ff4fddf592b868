import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, root } from './cli.js';
import { startServer, type TestServer } from './http-fixtures.js';

// `heed inbox --login` as a person uses it: the real command prints where to approve, the person approves
// in the browser (here: the same call the console's device page makes), and the terminal keeps a token.
const dir = mkdtempSync(join(tmpdir(), 'heed-login-'));
let server: TestServer | undefined;

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = { ...process.env, XDG_CONFIG_HOME: dir, HEED_TOKEN: '' };

/** Runs the CLI to its end without blocking this process, which serves the API the CLI calls. */
function run(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: root, env });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout }));
  });
}

describe('heed inbox --login', () => {
  it(
    'prints the address and code, waits for the approval, keeps the token (0600) and uses it; --logout revokes it',
    { timeout: 60_000 },
    async () => {
      server = await startServer({ auth: { tokens: { 'tok-ada': 'ada' } } });
      const child = spawn(process.execPath, [CLI, 'inbox', '--login', '--url', server.url], { cwd: root, env });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));

      await expect.poll(() => /code ([B-Z]{4}-[B-Z]{4})/.exec(out)?.[1], { timeout: 20_000 }).toBeDefined();
      const userCode = /code ([B-Z]{4}-[B-Z]{4})/.exec(out)![1];
      expect(out).toContain(`Open ${server.url}/auth/device?code=${userCode}`);
      const approved = await server.api('POST', '/auth/device/approve', { token: 'tok-ada', body: { userCode } });
      expect(approved.status).toBe(200);

      expect(await exited).toBe(0);
      expect(out).toContain('Signed in as ada.');
      const file = join(dir, 'heed', 'credentials.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const kept = JSON.parse(readFileSync(file, 'utf8')).servers[server.url];
      expect(kept).toMatchObject({ userId: 'ada', token: expect.stringMatching(/^heed_pat_/) });

      // The kept token is what heed inbox uses from now on.
      const listed = await run(['inbox', '--json', '--url', server.url]);
      expect(listed.code).toBe(0);

      const signedOut = await run(['inbox', '--logout', '--url', server.url]);
      expect(signedOut.stdout).toContain(`Signed out of ${server.url}`);
      expect((await server.api('GET', '/api/me', { token: kept.token })).status).toBe(401);
      expect(JSON.parse(readFileSync(file, 'utf8')).servers).toEqual({});
    },
  );
});
