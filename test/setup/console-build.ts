import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newest } from './built-cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The browser tests drive the built console, so it is built when missing or older than its sources
 * (`npm ci` has built it already in CI; this catches edits made since).
 */
export default async function buildConsole(): Promise<void> {
  const index = join(root, 'dist/ui/index.html');
  const sources = ['ui', 'src/react', 'src/client', 'src/kinds/question/coerce.ts', 'src/kinds/url.ts'].map((path) =>
    join(root, path),
  );
  if (
    existsSync(index) &&
    statSync(index).mtimeMs >= Math.max(...sources.filter(existsSync).map((path) => newest(path)))
  )
    return;
  const { build } = await import('vite');
  await build({ configFile: join(root, 'ui/vite.config.ts'), configLoader: 'runner', logLevel: 'warn' });
}
