import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');

/** Runs one set-up step in a child process with the given environment; its exit code and output. */
async function step(name: 'prepareChromium', env: Record<string, string>): Promise<{ code: number; output: string }> {
  const script = `import('./test/setup/prepare.ts').then((m) => { const why = m.${name}(); console.log('skip:', why ?? 'none'); })`;
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: root,
      env: { ...process.env, CI: '', ...env },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('npm test prepares what it needs (test/setup)', () => {
  it('a browser that cannot be had skips the browser tests with one line naming the command that enables them', async () => {
    const { code, output } = await step('prepareChromium', { HEED_CHROMIUM: '/no/such/chromium' });
    expect(code).toBe(0);
    expect(output).toContain(
      '[test setup] no chromium at /no/such/chromium; run `sudo apt-get install chromium` to enable the browser tests (skipping those tests).',
    );
    expect(output).toContain('skip: no chromium at /no/such/chromium');
  });

  it('under CI=true a missing browser fails instead of skipping', async () => {
    const { code, output } = await step('prepareChromium', { HEED_CHROMIUM: '/no/such/chromium', CI: 'true' });
    expect(code).not.toBe(0);
    expect(output).toContain('CI=true and no chromium at /no/such/chromium');
    expect(output).not.toContain('skip:');
  });

  it('the run has a database of its own and a temp folder that the tests write into', () => {
    expect(process.env.HEED_TEST_DATABASE_URL ?? process.env.HEED_TEST_SKIP_PG).toBeTruthy();
    expect(process.env.TMPDIR).toMatch(/heed-test-run-/);
  });
});
