/**
 * The built CLI that the tests which start `heed` as a process run (test/setup/built-cli.ts builds it
 * when stale), rather than the sources through tsx: one transpile per run, not one per process. Configs
 * those processes load import the package by its public names (`heed`, `heed/testing`), which resolve to
 * the same build there and to the sources inside vitest.
 */
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..');

/** `dist/cli/main.js`: run it as `node <CLI> serve …`. */
export const CLI = join(root, 'dist/cli/main.js');

/**
 * A config of test/fixtures as the set-up built it into JavaScript (`crash.config.ts` →
 * `.cache/fixtures/crash.config.js`), for `heed serve --config`: a process reads it without tsx.
 */
export function fixtureConfig(name: string): string {
  return join(root, '.cache/fixtures', name.replace(/\.ts$/, '.js'));
}

/** A module of the built package as a quoted absolute path, for configs a test writes outside the package. */
export function builtModule(path: string): string {
  return JSON.stringify(join(root, 'dist', path));
}
