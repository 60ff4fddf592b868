import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

/**
 * Vitest global setup: the browser tests drive the built console, so build it when it is missing or
 * older than its sources (`npm ci` has built it already in CI; this catches edits made since).
 */
export default async function buildConsole(): Promise<void> {
  const index = join(root, 'dist/ui/index.html');
  const sources = ['ui', 'src/react', 'src/client', 'src/kinds/question/coerce.ts', 'src/kinds/url.ts'].map((path) =>
    join(root, path),
  );
  if (existsSync(index) && statSync(index).mtimeMs >= Math.max(...sources.filter(existsSync).map(newest))) return;
  const { build } = await import('vite');
  await build({ configFile: join(root, 'ui/vite.config.ts'), configLoader: 'runner', logLevel: 'warn' });
}
