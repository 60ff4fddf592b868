/**
 * The README's promise, checked as a new user meets it: a fresh clone, `npm ci && npx heed serve`,
 * and the server answers `/health` and serves the console.
 *
 * A full `npm ci` in the clone would download and compile the same packages again (a minute or more),
 * so the installed node_modules is hard-linked in and only `npm ci`'s own build step (`prepare`) runs.
 * What is cloned is the committed HEAD: uncommitted edits are not part of a fresh clone either.
 * `npx heed` runs `prepare` once more (it links the package into npx's cache): that finds the build up to
 * date and leaves it alone (scripts/prepare.mjs), so the README's two steps build once.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { listeningUrl } from './serve-process.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'heed-fresh-clone-'));
const clone = join(dir, 'heed');
let server: ReturnType<typeof spawn> | undefined;

/** npx keeps a folder in npm's cache per package folder it ran from: the clone's goes with the clone. */
function forgetNpxLink(): void {
  const npx = join(process.env.npm_config_cache ?? join(homedir(), '.npm'), '_npx');
  for (const entry of existsSync(npx) ? readdirSync(npx) : []) {
    const modules = join(npx, entry, 'node_modules');
    let target = '';
    try {
      target = resolve(modules, readlinkSync(join(modules, 'heed')));
    } catch {
      continue; // Not a link to a package folder: another package npx ran.
    }
    if (target === clone) rmSync(join(npx, entry), { recursive: true, force: true });
  }
}

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
  forgetNpxLink();
  // A clone with node_modules linked in is thousands of entries: more than the default 10 s on a busy machine.
}, 60_000);

describe('a fresh clone, as the README says', { timeout: 420_000 }, () => {
  it('npm ci && npx heed serve: /health answers and the console is served', async () => {
    await run('git', ['clone', '--quiet', '--no-hardlinks', root, clone]);
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    // `npm ci` = the locked packages (linked from this checkout's install) + its `prepare` build.
    await run('cp', ['-al', join(root, 'node_modules'), join(clone, 'node_modules')]);
    await run('npm', ['run', 'prepare'], { cwd: clone, maxBuffer: 16 * 1024 * 1024 });
    const builtAt = statSync(join(clone, 'dist/cli/main.js')).mtimeMs;

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
    // npx ran `prepare` again in its cache: the build was up to date, so it was not built a second time.
    expect(statSync(join(clone, 'dist/cli/main.js')).mtimeMs).toBe(builtAt);

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
