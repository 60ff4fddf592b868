/**
 * Global set-up of the projects that start `heed` as a process: they run the built CLI
 * (`dist/cli/main.js`, see test/cli.ts), so it is built here when missing or older than its sources
 * (`npm ci` builds it already; this catches edits made since), and the TypeScript configs of
 * test/fixtures are turned into JavaScript once, so that no process loads tsx to read its config.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { isStale } from '../../scripts/build-state.mjs';
import { say } from './prepare.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Where test/fixtures/*.ts go as JavaScript (inside the package, so `heed` resolves to dist/). */
export const builtFixtures = join(root, '.cache/fixtures');

/** Each test/fixtures/*.ts as a .js module of the same name; types and type-only imports drop out. */
function buildFixtures(): void {
  const from = join(root, 'test/fixtures');
  mkdirSync(builtFixtures, { recursive: true });
  for (const name of readdirSync(from).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))) {
    const { outputText } = ts.transpileModule(readFileSync(join(from, name), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      fileName: name,
    });
    writeFileSync(join(builtFixtures, name.replace(/\.ts$/, '.js')), outputText);
  }
}

export default function setup(): void {
  buildFixtures();
  if (!isStale('lib', root)) return;
  say('building the CLI into dist/ (its sources changed since the last build)…');
  const result = spawnSync('npm', ['run', 'build:lib'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build:lib failed:\n${result.stdout}${result.stderr}`);
}
