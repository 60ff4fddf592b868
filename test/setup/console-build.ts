import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isStale } from '../../scripts/build-state.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The browser tests drive the built console, so it is built when missing or older than its sources
 * (`npm ci` has built it already in CI; this catches edits made since).
 */
export default async function buildConsole(): Promise<void> {
  if (!isStale('ui', root)) return;
  const { build } = await import('vite');
  await build({ configFile: join(root, 'ui/vite.config.ts'), configLoader: 'runner', logLevel: 'warn' });
}
