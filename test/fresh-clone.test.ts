/**
 * The README's promise, checked as a new user meets it: a fresh clone, `npm ci && npx heed serve`,
 * and the server answers `/health` and serves the console.
 *
 * A full `npm ci` in the clone would download and compile the same packages again (a minute or more),
 * so the installed node_modules is hard-linked in and only `npm ci`'s own build step (`prepare`) runs.
 * What is cloned is the committed HEAD: uncommitted edits are not part of a fresh clone either.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { listeningUrl } from './serve-process.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'heed-fresh-clone-'));
const clone = join(dir, 'heed');
let server: ReturnType<typeof spawn> | undefined;

afterAll(() => {
  // npx runs heed serve as its child: end the whole process group, not only npx.
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  rmSync(dir, { recursive: true, force: true });
  // A clone with node_modules linked in is thousands of entries: more than the default 10 s on a busy machine.
}, 60_000);

describe('a fresh clone, as the README says', { timeout: 420_000 }, () => {
  it('npm ci && npx heed serve: /health answers and the console is served', async () => {
    await run('git', ['clone', '--quiet', '--no-hardlinks', root, clone]);
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    // `npm ci` = the locked packages (linked from this checkout's install) + its `prepare` build.
    await run('cp', ['-al', join(root, 'node_modules'), join(clone, 'node_modules')]);
    await run('npm', ['run', 'prepare'], { cwd: clone, maxBuffer: 16 * 1024 * 1024 });

    server = spawn('npx', ['heed', 'serve', '--port', '0'], {
      cwd: clone,
      env: { ...process.env, OPENAI_API_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    server.stdout!.on('data', (chunk) => (output += chunk));
    server.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    const url = await listeningUrl(() => output, exited);

    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('<div id="root">');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    expect((await fetch(`${url}${script}`)).status).toBe(200);
    // The SQLite default: ./heed.db in the folder it was started from.
    expect(existsSync(join(clone, 'heed.db'))).toBe(true);

    // Stopping npx by its process id stops the server below it: npm passes the signal to the shell it
    // ran the command in, which ends without passing it on; the server sees npm go and stops cleanly.
    process.kill(server.pid!, 'SIGTERM');
    const started = Date.now();
    let up = true;
    while (up && Date.now() - started < 15_000) {
      up = await fetch(`${url}/health`).then(
        () => true,
        () => false,
      );
      if (up) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(up).toBe(false);
    // Its last lines come as it stops.
    await expect
      .poll(() => output)
      .toContain('npm ended: finishing requests under way, then stopping (again to stop at once).');
    await expect.poll(() => output).toContain('Heed stopped.');
  });
});
