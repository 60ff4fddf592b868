/**
 * Whether a part of the build (the library and CLI, or the console) is older than what it is built from:
 * one rule for `npm run prepare` (scripts/prepare.mjs) and the test set-ups that build before a run.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const isTest = (name) => /\.test\.tsx?$/.test(name);

/** Each part: the file its build writes, and what that build reads (tests are not built). */
export const parts = {
  lib: {
    output: 'dist/cli/main.js',
    sources: ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'],
  },
  ui: {
    output: 'dist/ui/index.html',
    sources: ['ui', 'src/react', 'src/client', 'src/kinds/question/coerce.ts', 'src/kinds/url.ts', 'package.json'],
  },
};

/** The newest modification time under `path`, test files left out. */
export function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path)
    .filter((name) => !isTest(name))
    .reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

/** True when the part's output is missing or older than one of its sources. */
export function isStale(part, base = root) {
  const { output, sources } = parts[part];
  const built = join(base, output);
  if (!existsSync(built)) return true;
  const read = sources.map((path) => join(base, path)).filter((path) => existsSync(path));
  return statSync(built).mtimeMs < Math.max(...read.map(newest));
}
