/**
 * `heed serve --log json` (docs/deploy.md, "Logs"): every line on stdout is one JSON object, the
 * server's own lines and what Heed logs alike, from the start to the stop.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { CLI, root } from './cli.js';

describe('heed serve --log json', { timeout: 60_000 }, () => {
  it('prints one JSON object per line, with level, time and msg, until it stops', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HEED_DEMO_DELAY_MS: '0', OPENAI_API_KEY: '' };
    delete env.HEED_DATABASE_URL;
    // The demo's mail goes to a folder of its own, not the checkout.
    const mail = mkdtempSync(join(tmpdir(), 'heed-serve-log-'));
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--port', '0', '--db', ':memory:', '--log', 'json', '--mail-capture', mail],
      {
        cwd: root,
        env,
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await expect.poll(() => stdout, { timeout: 45_000 }).toContain('Heed listening on');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const objects = lines.map((line) => JSON.parse(line) as { level: string; time: string; msg: string });
    for (const entry of objects)
      expect(entry).toMatchObject({
        level: expect.stringMatching(/^(debug|info|warn|error)$/),
        time: expect.any(String),
        msg: expect.any(String),
      });
    const messages = objects.map((entry) => entry.msg);
    expect(messages.some((msg) => /^Heed listening on http:\/\/127\.0\.0\.1:\d+$/.test(msg))).toBe(true);
    expect(messages.at(-1)).toBe('Heed stopped.');
    rmSync(mail, { recursive: true, force: true });
  });

  it('--log takes text or json', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--log', 'yaml'], {
      cwd: root,
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit)));
    expect(code).toBe(2);
    expect(stderr).toBe('heed serve: --log takes text or json; got "yaml".\n');
  });
});
