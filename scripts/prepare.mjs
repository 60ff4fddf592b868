/**
 * `npm ci`'s build step. It runs twice on a new machine: after `npm ci`, and again at the first `npx heed`,
 * because npx links this very package into its cache to find the `heed` command and runs its `prepare`
 * there. So each part is built only when missing or older than its sources (scripts/build-state.mjs):
 * `npm run build` always builds.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isStale } from './build-state.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const part of ['lib', 'ui']) {
  if (isStale(part, root)) execFileSync('npm', ['run', `build:${part}`], { cwd: root, stdio: 'inherit' });
  else
    console.log(`heed: the ${part === 'lib' ? 'library and CLI in dist/ are' : 'console in dist/ui is'} up to date.`);
}
