/**
 * The published declarations (dist/*.d.ts, what `import ... from 'heed'` type-checks against in a
 * user's project) accept AI SDK 7 models as well as AI SDK 6 ones, with no cast: ai-sdk-consumer.ts is
 * compiled by the TypeScript compiler with `heed` mapped to dist/, which the run's set-up
 * (test/setup/built-cli.ts) builds first when it is missing or older than the sources.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

/**
 * Errors in the consumer's file and in Heed's declarations (not in other packages' own .d.ts). Only those
 * files are checked: with skipLibCheck off (Heed's declarations are .d.ts files too), checking every
 * package's declarations as well took three times as long, for errors this test left out anyway.
 */
function consumerErrors(): string[] {
  const configPath = join(root, 'test/types/tsconfig.consumer.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, join(root, 'test/types'));
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const own = program.getSourceFiles().filter((file) => !file.fileName.includes('/node_modules/'));
  return [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
  ].map((diagnostic) => {
    const where = diagnostic.file
      ? `${relative(root, diagnostic.file.fileName)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`
      : '';
    return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

describe('published types', () => {
  it(
    'a project passing an @ai-sdk/openai@4 model and a MockLanguageModelV4 (and AI SDK 6 models) to createHeed compiles with no cast',
    { timeout: 120_000 },
    () => {
      expect(consumerErrors()).toEqual([]);
    },
  );

  it('the declarations name only packages a user has: heed dependencies', () => {
    const pkg = JSON.parse(ts.sys.readFile(join(root, 'package.json'))!) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    // The package itself is there too (doc comments show `import … from 'heed'`).
    const allowed = new Set(['heed', ...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies ?? {})]);
    const named = new Set<string>();
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.d.ts')) {
          for (const match of ts.sys.readFile(path)!.matchAll(/(?:from|import\()\s*['"]([^'".][^'"]*)['"]/g)) {
            const spec = match[1];
            if (spec.startsWith('node:')) continue;
            named.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
          }
        }
      }
    };
    walk(join(root, 'dist'));
    expect([...named].filter((name) => !allowed.has(name)).sort()).toEqual([]);
    expect(named.has('@ai-sdk/provider-v4')).toBe(true);
  });
});
